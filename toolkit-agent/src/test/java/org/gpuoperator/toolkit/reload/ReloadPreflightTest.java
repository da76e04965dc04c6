package org.gpuoperator.toolkit.reload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each restart mode says, before anything is written, what this process lacks to use it. */
class ReloadPreflightTest {

    @TempDir Path host;

    @Test
    void signalModeNamesAMissingSocket() {
        Path sock = host.resolve("run/containerd/containerd.sock");
        assertThatThrownBy(() -> new SignalReload(sock).preflight())
                .isInstanceOf(IOException.class)
                .hasMessageContaining(sock + " does not exist")
                .hasMessageContaining("RUNTIME_SOCKET");
    }

    @Test
    void signalModeFindsTheSocketOwnersPidInThisPidNamespace() throws Exception {
        Path sock = host.resolve("r.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            SignalReload r = new SignalReload(sock);
            r.preflight();
            assertThat(r.runtimePid()).isEqualTo(ProcessHandle.current().pid());
        }
    }

    @Test
    void systemdModeNeedsTheHostsSystemdAndSystemctl() throws Exception {
        SystemdRestart r = new SystemdRestart("containerd", host, "systemctl");
        assertThatThrownBy(r::preflight)
                .isInstanceOf(IOException.class)
                .hasMessageContaining(host.resolve("run/systemd/system") + " does not exist")
                .hasMessageContaining("host does not run systemd");
        Files.createDirectories(host.resolve("run/systemd/system"));
        assertThatThrownBy(r::preflight)
                .isInstanceOf(IOException.class)
                .hasMessageContaining("systemctl not found in the host root")
                .hasMessageContaining(host.resolve("usr/bin/systemctl").toString());
        Path systemctl = host.resolve("usr/bin/systemctl");
        Files.createDirectories(systemctl.getParent());
        Files.writeString(systemctl, "#!/bin/sh\n");
        assertThat(systemctl.toFile().setExecutable(true)).isTrue();
        r.preflight();
        assertThat(r.command())
                .containsExactly("chroot", host.toString(), "systemctl", "restart", "containerd");
    }
}
