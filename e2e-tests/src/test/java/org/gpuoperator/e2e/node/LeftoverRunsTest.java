package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.gpuoperator.e2e.node.LeftoverRuns.Link;
import org.gpuoperator.e2e.node.LeftoverRuns.Plan;
import org.gpuoperator.e2e.node.LeftoverRuns.Proc;
import org.gpuoperator.e2e.node.LeftoverRuns.RunDir;
import org.gpuoperator.e2e.node.LeftoverRuns.Snapshot;
import org.junit.jupiter.api.Test;

class LeftoverRunsTest {

    static final Path DEAD = Path.of("/tmp/gpuop-111");
    static final Path LIVE = Path.of("/tmp/gpuop-222");
    static final RunOwner DEAD_OWNER = new RunOwner(1234, Instant.ofEpochMilli(1_000));
    static final RunOwner LIVE_OWNER = new RunOwner(5678, Instant.ofEpochMilli(2_000));

    /** One node per run: containerd, a shim with a pause and an agent container, an agent. */
    static List<Proc> processesOf(Path dir, long base) {
        String root = dir + "/gpu-node-1";
        return List.of(
                new Proc(
                        base,
                        1,
                        List.of("containerd", "--config", root + "/etc/containerd/config.toml"),
                        null),
                new Proc(
                        base + 1,
                        1,
                        List.of(
                                "/usr/bin/containerd-shim-runc-v2",
                                "-namespace",
                                "k8s.io",
                                "-id",
                                "abc",
                                "-address",
                                root + "/run/containerd/containerd.sock"),
                        null),
                new Proc(base + 2, base + 1, List.of("/bin/sleep", "infinity"), null),
                new Proc(base + 3, base + 1, List.of("java", "-jar", "/app/x.jar"), null),
                new Proc(base + 4, base + 3, List.of("nvidia-smi"), null));
    }

    static Snapshot machine(List<Proc> extra, Set<Integer> idleSlots) {
        List<Proc> ps = new ArrayList<>(processesOf(DEAD, 100));
        ps.addAll(processesOf(LIVE, 200));
        ps.add(new Proc(1, 0, List.of("/sbin/init"), null));
        ps.addAll(extra);
        return new Snapshot(
                ps,
                List.of(
                        new RunDir(DEAD, DEAD_OWNER, false),
                        new RunDir(LIVE, LIVE_OWNER, true),
                        new RunDir(Path.of("/tmp/gpuop-333"), null, false)),
                List.of(
                        new Link("eth0", false, null),
                        new Link("cni-sim1", true, null),
                        new Link("veth1a", false, "cni-sim1"),
                        new Link("veth1b", false, "cni-sim1"),
                        new Link("cni-sim2", true, null),
                        new Link("veth2a", false, "cni-sim2"),
                        new Link("docker0", true, null)),
                List.of(
                        Path.of("/"),
                        Path.of("/tmp/gpuop-111/gpu-node-1.mnt"),
                        Path.of("/tmp/gpuop-111/gpu-node-1/x/tmpfs"),
                        Path.of("/tmp/gpuop-1111/gpu-node-1.mnt"),
                        Path.of("/tmp/gpuop-222/gpu-node-1.mnt")),
                idleSlots);
    }

    @Test
    void aDeadRunsProcessesMountsLinksAndDirAreRemovedAndALiveRunsAreNot() {
        Plan p = LeftoverRuns.plan(machine(List.of(), Set.of(1)));

        assertThat(p.owners()).containsExactly(1234L);
        assertThat(p.containerd()).containsExactly(100L);
        assertThat(p.shims()).containsExactly(101L);
        // every descendant of the shim, at any depth
        assertThat(p.containers()).containsExactlyInAnyOrder(102L, 103L, 104L);
        assertThat(p.agents()).isEmpty();
        // deepest first; /tmp/gpuop-1111 is another dir, /tmp/gpuop-222's owner runs
        assertThat(p.mounts())
                .containsExactly(
                        Path.of("/tmp/gpuop-111/gpu-node-1/x/tmpfs"),
                        Path.of("/tmp/gpuop-111/gpu-node-1.mnt"));
        // slot 2's lock is held by a live process: its bridge and veth stay
        assertThat(p.bridges()).containsExactly("cni-sim1");
        assertThat(p.veths()).containsExactly("veth1a", "veth1b");
        // a dir without an owner record is not judged
        assertThat(p.dirs()).containsExactly(DEAD);
        // containerd first (nothing restarts the rest), then containers, then shims
        assertThat(p.processes()).startsWith(100L).endsWith(101L);
    }

    @Test
    void theLineSaysWhoseAndWhatItRemoved() {
        Plan p = LeftoverRuns.plan(machine(List.of(), Set.of(1)));
        assertThat(p.describe())
                .isEqualTo(
                        "a killed run (pid 1234): 1 containerd, 1 shim, 3 container processes,"
                                + " 1 bridge, 2 veths, 2 mounts, /tmp/gpuop-111");
    }

    @Test
    void nothingIsPlannedWhenEveryRunIsAlive() {
        Snapshot all =
                new Snapshot(
                        processesOf(LIVE, 200),
                        List.of(new RunDir(LIVE, LIVE_OWNER, true)),
                        List.of(
                                new Link("cni-sim2", true, null),
                                new Link("veth2a", false, "cni-sim2")),
                        List.of(Path.of("/tmp/gpuop-222/gpu-node-1.mnt")),
                        Set.of());
        Plan p = LeftoverRuns.plan(all);
        assertThat(p.empty()).isTrue();
        assertThat(p.owners()).isEmpty();
    }

    @Test
    void processesOfAWorkDirThatIsGoneAreLeftoversToo() {
        Snapshot s =
                new Snapshot(
                        processesOf(Path.of("/tmp/gpuop-999"), 300),
                        List.of(),
                        List.of(),
                        List.of(),
                        Set.of());
        Plan p = LeftoverRuns.plan(s);
        assertThat(p.containerd()).containsExactly(300L);
        assertThat(p.shims()).containsExactly(301L);
        assertThat(p.describe()).startsWith("killed runs: 1 containerd, 1 shim");
    }

    @Test
    void agentsRunAsHostProcessesAreADeadRunsByTheirKubeconfigAndOnlyJavaJarsCount() {
        List<Proc> extra =
                List.of(
                        new Proc(
                                400,
                                1,
                                List.of("java", "@flags", "-jar", "/r/device-plugin.jar"),
                                "/tmp/gpuop-111/kubeconfig"),
                        new Proc(
                                401,
                                1,
                                List.of("java", "-jar", "/r/device-plugin.jar"),
                                "/tmp/gpuop-222/kubeconfig"),
                        // a user's kubectl against the dead cluster is theirs
                        new Proc(
                                402,
                                1,
                                List.of("kubectl", "get", "pods", "-w"),
                                "/tmp/gpuop-111/kubeconfig"),
                        // containerd of someone else entirely
                        new Proc(
                                403,
                                1,
                                List.of("containerd", "--config", "/etc/containerd/config.toml"),
                                null));
        Plan p = LeftoverRuns.plan(machine(extra, Set.of()));
        assertThat(p.agents()).containsExactly(400L);
        assertThat(p.containerd()).containsExactly(100L);
        assertThat(p.bridges()).isEmpty();
    }

    @Test
    void aWorkDirIsMatchedAsAPathNotAPrefix() {
        assertThat(LeftoverRuns.workDirIn("/tmp/gpuop-111/gpu-node-1/run/x.sock"))
                .contains("gpuop-111");
        assertThat(LeftoverRuns.workDirIn("/tmp/gpuop-111")).isEmpty();
        assertThat(LeftoverRuns.workDirIn("/var/tmp/gpuop-111/x")).isEmpty();
        assertThat(
                        LeftoverRuns.workDirOf(
                                List.of("containerd", "--config=/tmp/gpuop-7/a"), "--config"))
                .contains("gpuop-7");
    }
}
