package org.gpuoperator.toolkit.reload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PosixTest {

    @TempDir Path dir;

    @Test
    void peerPidOfAUnixSocketIsItsListenersPid() throws Exception {
        Path sock = dir.resolve("s.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(sock));
            assertThat(Posix.peerPid(sock)).isEqualTo((int) ProcessHandle.current().pid());
        }
    }

    @Test
    void noListenerIsAClearError() {
        assertThatThrownBy(() -> Posix.peerPid(dir.resolve("none.sock")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cannot connect");
    }

    @Test
    void killDeliversSighup() throws Exception {
        // SIGHUP's default action ends a process with status 128 + 1, which is what happens to
        // containerd (no handler).
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            Posix.kill((int) sleeper.pid(), Posix.SIGHUP);
            assertThat(sleeper.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(sleeper.exitValue()).isEqualTo(129);
        } finally {
            sleeper.destroyForcibly();
        }
    }
}
