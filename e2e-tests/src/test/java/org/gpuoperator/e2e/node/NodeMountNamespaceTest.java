package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeMountNamespaceTest {

    private static final Path ROOT = Path.of("/tmp/gpuop-1/gpu-node-1");

    @Test
    void theNamespaceIsKeptInAFileWithTheNodeRootSharedAndTheNodePathsBound() {
        List<String> cmd = NodeMountNamespace.create(ROOT, Path.of("/tmp/gpuop-1/gpu-node-1.mnt"));
        assertThat(cmd.subList(0, 4))
                .containsExactly("unshare", "--mount=/tmp/gpuop-1/gpu-node-1.mnt", "sh", "-c");
        String script = cmd.get(4);
        assertThat(script.lines())
                .startsWith(
                        "set -e",
                        "mount --make-rprivate /",
                        "mount --bind '/tmp/gpuop-1/gpu-node-1' '/tmp/gpuop-1/gpu-node-1'",
                        "mount --make-rshared '/tmp/gpuop-1/gpu-node-1'");
        assertThat(script)
                .contains(
                        "mount --bind '/tmp/gpuop-1/gpu-node-1/usr/local/nvidia' /usr/local/nvidia")
                .contains("mount --bind '/tmp/gpuop-1/gpu-node-1/run/nvidia' /run/nvidia")
                .contains("mount --bind '/tmp/gpuop-1/gpu-node-1/var/run/cdi' /run/cdi")
                .contains("mount --bind '/tmp/gpuop-1/gpu-node-1/proc/driver' /proc/driver")
                .contains(
                        "mount --bind '/tmp/gpuop-1/gpu-node-1/var/lib/driver-agent-sim' /var/lib/driver-agent-sim")
                .contains("mount --bind '/tmp/gpuop-1/gpu-node-1/var/log' /var/log")
                .contains("mount --bind '/tmp/gpuop-1/gpu-node-1/etc/containerd' /etc/containerd");
        // tmpfs first, so that the mount points need no directory on the machine itself
        assertThat(script.indexOf("node-run /run"))
                .isLessThan(script.indexOf("mkdir -p /run/nvidia"));
        assertThat(script.indexOf("mount -t tmpfs -o mode=755 node-var-lib /var/lib"))
                .isPositive()
                .isLessThan(script.indexOf("mkdir -p /var/lib/driver-agent-sim"));
        assertThat(script).contains("mount -t tmpfs -o mode=755 node-usr-local /usr/local");
        assertThat(script).doesNotContain("exec").doesNotContain("containerd --");
    }

    @Test
    void theDaemonEntersTheKeptNamespaceAsItsOwnProcess() {
        assertThat(
                        NodeMountNamespace.enter(
                                Path.of("/w/n.mnt"), List.of("containerd", "--config", "/c.toml")))
                .containsExactly(
                        "nsenter", "--mount=/w/n.mnt", "--", "containerd", "--config", "/c.toml");
        assertThat(NodeMountNamespace.remove(Path.of("/w/n.mnt")))
                .containsExactly("umount", "/w/n.mnt");
    }

    @Test
    void everyBindSourceIsUnderTheNodeRoot() {
        assertThat(NodeMountNamespace.sources(ROOT)).allMatch(p -> p.startsWith(ROOT)).hasSize(7);
    }

    @Test
    void aNodeRootThatATmpfsWouldHideIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                NodeMountNamespace.create(
                                        Path.of("/var/lib/n1"), Path.of("/tmp/n1.mnt")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/var/lib");
    }

    @Test
    void aContainerdWithoutContainersGetsOnlyTheNodesEtcContainerdAndKeepsItsPid() {
        List<String> cmd =
                NodeMountNamespace.configOnly(ROOT, List.of("containerd", "--config", "/c.toml"));
        assertThat(cmd.subList(0, 4)).containsExactly("unshare", "--mount", "sh", "-c");
        assertThat(cmd.get(4).lines())
                .containsExactly(
                        "set -e",
                        "mount --make-rprivate /",
                        "mount --bind '/tmp/gpuop-1/gpu-node-1/etc/containerd' /etc/containerd",
                        "exec \"$@\"");
        assertThat(cmd.subList(5, cmd.size()))
                .containsExactly("sh", "containerd", "--config", "/c.toml");
    }
}
