package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StartupCleanupTest {

    /** The machine of {@link LeftoverRunsTest}, recording what is done to it. */
    static class FakeHost implements LeftoverHost {
        final List<String> done = new ArrayList<>();
        final Set<Long> running = new HashSet<>();
        final Set<Long> notPermitted = new HashSet<>();
        final Set<Path> busy = new HashSet<>();
        final List<Path> mounted = new ArrayList<>();
        final LeftoverRuns.Snapshot snapshot;
        boolean privileged = true;
        boolean released;

        FakeHost(LeftoverRuns.Snapshot snapshot) {
            this.snapshot = snapshot;
            snapshot.processes().forEach(p -> running.add(p.pid()));
            mounted.addAll(snapshot.mountPoints());
        }

        @Override
        public LeftoverRuns.Snapshot snapshot() {
            return snapshot;
        }

        @Override
        public boolean kill(long pid) {
            if (notPermitted.contains(pid)) {
                return false;
            }
            done.add("kill " + pid);
            running.remove(pid);
            return true;
        }

        @Override
        public boolean gone(long pid) {
            return !running.contains(pid);
        }

        @Override
        public List<Path> mountPoints() {
            return List.copyOf(mounted);
        }

        @Override
        public void unmount(Path m) throws IOException {
            if (busy.contains(m)) {
                throw new IOException("target is busy");
            }
            done.add("umount " + m);
            mounted.remove(m);
        }

        @Override
        public void deleteLink(String name) {
            done.add("ip link delete " + name);
        }

        @Override
        public void deleteDir(Path dir) {
            done.add("rm " + dir);
        }

        @Override
        public boolean privileged() {
            return privileged;
        }

        @Override
        public void release() {
            released = true;
        }
    }

    static FakeHost host() {
        return new FakeHost(LeftoverRunsTest.machine(List.of(), Set.of(1)));
    }

    @Test
    void processesGoFirstThenMountsThenLinksThenTheDirAndOneLineSaysSo() throws Exception {
        FakeHost h = host();
        StartupCleanup.Outcome o = StartupCleanup.run(h, Duration.ofSeconds(1));

        assertThat(o.failures()).isEmpty();
        assertThat(h.done)
                .containsExactly(
                        "kill 100",
                        "kill 102",
                        "kill 103",
                        "kill 104",
                        "kill 101",
                        "umount /tmp/gpuop-111/gpu-node-1/x/tmpfs",
                        "umount /tmp/gpuop-111/gpu-node-1.mnt",
                        "ip link delete veth1a",
                        "ip link delete veth1b",
                        "ip link delete cni-sim1",
                        "rm /tmp/gpuop-111");
        assertThat(h.running).contains(200L, 201L, 202L); // the live run's
        assertThat(h.released).isTrue();
        assertThat(o.message(true))
                .isEqualTo(
                        "cleaned up a killed run (pid 1234): 1 containerd, 1 shim, 3 container"
                                + " processes, 1 bridge, 2 veths, 2 mounts, /tmp/gpuop-111");
    }

    @Test
    void nothingLeftDoesNothing() throws Exception {
        FakeHost h =
                new FakeHost(
                        new LeftoverRuns.Snapshot(
                                List.of(), List.of(), List.of(), List.of(), Set.of()));
        StartupCleanup.Outcome o = StartupCleanup.run(h, Duration.ofSeconds(1));
        assertThat(o.nothingLeft()).isTrue();
        assertThat(h.done).isEmpty();
        assertThat(h.released).isTrue();
    }

    @Test
    void whereItMayNotItRefusesWithTheCommandThatCleansUp() throws Exception {
        FakeHost h = host();
        h.privileged = false;
        h.notPermitted.add(100L);
        StartupCleanup.Outcome o = StartupCleanup.run(h, Duration.ofMillis(100));

        assertThat(o.failures())
                .containsExactly(new StartupCleanup.Failure("kill -9 100", "not permitted"));
        assertThat(o.message(false))
                .isEqualTo(
                        "cannot clean up after a killed run (pid 1234) (1 containerd, 1 shim, 3"
                                + " container processes, 1 bridge, 2 veths, 2 mounts,"
                                + " /tmp/gpuop-111): kill -9 100: not permitted; clean it as"
                                + " root: sudo bin/simulate --clean");
    }

    @Test
    void aDirWithAMountLeftIsNotDeletedAndRootIsToldWhatToRunByHand() throws Exception {
        FakeHost h = host();
        Path mnt = Path.of("/tmp/gpuop-111/gpu-node-1.mnt");
        h.busy.add(mnt);
        StartupCleanup.Outcome o = StartupCleanup.run(h, Duration.ofSeconds(1));

        assertThat(h.done).doesNotContain("rm /tmp/gpuop-111");
        assertThat(o.failures())
                .containsExactly(
                        new StartupCleanup.Failure("umount " + mnt, "target is busy"),
                        new StartupCleanup.Failure(
                                "rm -rf /tmp/gpuop-111", "something is still mounted in it"));
        assertThat(o.message(true))
                .endsWith(
                        "umount /tmp/gpuop-111/gpu-node-1.mnt: target is busy (and 1 more); clean"
                                + " it by hand: umount /tmp/gpuop-111/gpu-node-1.mnt; rm -rf"
                                + " /tmp/gpuop-111");
    }

    @Test
    void aProcessThatDoesNotDieIsAFailure() throws Exception {
        FakeHost h =
                new FakeHost(LeftoverRunsTest.machine(List.of(), Set.of(1))) {
                    @Override
                    public boolean kill(long pid) {
                        done.add("kill " + pid);
                        return true; // sent, but it stays (uninterruptible sleep)
                    }
                };
        StartupCleanup.Outcome o = StartupCleanup.run(h, Duration.ofMillis(100));
        assertThat(o.failures())
                .contains(new StartupCleanup.Failure("kill -9 100", "still running after PT0.1S"));
    }
}
