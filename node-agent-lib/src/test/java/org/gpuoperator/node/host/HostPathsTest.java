package org.gpuoperator.node.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HostPathsTest {

    @Test
    void leadingSlashesGoAndNothingElseChanges() {
        assertThat(HostPaths.relative("/usr/lib/x86_64-linux-gnu/libcuda.so.1"))
                .isEqualTo("usr/lib/x86_64-linux-gnu/libcuda.so.1");
        assertThat(HostPaths.relative("//run//nvidia/")).isEqualTo("run//nvidia/");
        assertThat(HostPaths.relative("etc/containerd")).isEqualTo("etc/containerd");
        assertThat(HostPaths.relative("/")).isEmpty();
        assertThat(HostPaths.relative("")).isEmpty();
    }

    @Test
    void aHostPathResolvesUnderTheHostRootAndTheHostRootIsTheHostsRoot() {
        Path root = Path.of("/host");
        assertThat(HostPaths.under(root, "/dev/nvidia0")).isEqualTo(Path.of("/host/dev/nvidia0"));
        assertThat(HostPaths.under(root, "///dev/nvidia0")).isEqualTo(Path.of("/host/dev/nvidia0"));
        assertThat(HostPaths.under(root, "/")).isEqualTo(root);
    }
}
