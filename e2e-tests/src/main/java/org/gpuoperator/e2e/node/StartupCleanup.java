package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes what killed simulated clusters left ({@link LeftoverRuns}), in an order that works:
 * processes first (a mount namespace and the pods' network namespaces in it go with their last
 * process), then mounts, links and dirs. A dir is deleted only once nothing is mounted under it.
 */
public final class StartupCleanup {

    private StartupCleanup() {}

    /** A step that failed: the command that would do it, and why it did not. */
    public record Failure(String command, String reason) {}

    public record Outcome(LeftoverRuns.Plan plan, List<Failure> failures) {

        public boolean nothingLeft() {
            return plan.empty();
        }

        /** The one line said at start, or a refusal naming the command that cleans up. */
        public String message(boolean privileged) {
            if (failures.isEmpty()) {
                return "cleaned up " + plan.describe();
            }
            Failure first = failures.getFirst();
            String more = failures.size() > 1 ? " (and " + (failures.size() - 1) + " more)" : "";
            String how =
                    privileged
                            ? "clean it by hand: "
                                    + String.join(
                                            "; ", failures.stream().map(Failure::command).toList())
                            : "clean it as root: sudo bin/simulate --clean";
            return "cannot clean up after "
                    + plan.who()
                    + " ("
                    + plan.what()
                    + "): "
                    + first.command()
                    + ": "
                    + first.reason()
                    + more
                    + "; "
                    + how;
        }
    }

    public static Outcome run(LeftoverHost host, Duration killWait)
            throws IOException, InterruptedException {
        try {
            LeftoverRuns.Plan plan = LeftoverRuns.plan(host.snapshot());
            List<Failure> failures = new ArrayList<>();
            if (plan.empty()) {
                return new Outcome(plan, failures);
            }
            List<Long> killed = new ArrayList<>();
            for (long pid : plan.processes()) {
                if (host.kill(pid)) {
                    killed.add(pid);
                } else if (!host.gone(pid)) {
                    failures.add(new Failure("kill -9 " + pid, "not permitted"));
                }
            }
            long deadline = System.nanoTime() + killWait.toNanos();
            while (!killed.stream().allMatch(host::gone) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            for (long pid : killed) {
                if (!host.gone(pid)) {
                    failures.add(new Failure("kill -9 " + pid, "still running after " + killWait));
                }
            }
            for (Path m : plan.mounts()) {
                try {
                    host.unmount(m);
                } catch (IOException e) {
                    failures.add(new Failure("umount " + m, e.getMessage()));
                }
            }
            for (String link : concat(plan.veths(), plan.bridges())) {
                try {
                    host.deleteLink(link);
                } catch (IOException e) {
                    failures.add(new Failure("ip link delete " + link, e.getMessage()));
                }
            }
            List<Path> mounted = host.mountPoints();
            for (Path dir : plan.dirs()) {
                if (mounted.stream().anyMatch(m -> m.startsWith(dir))) {
                    failures.add(new Failure("rm -rf " + dir, "something is still mounted in it"));
                    continue;
                }
                try {
                    host.deleteDir(dir);
                } catch (IOException e) {
                    failures.add(new Failure("rm -rf " + dir, e.getMessage()));
                }
            }
            return new Outcome(plan, failures);
        } finally {
            host.release();
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
