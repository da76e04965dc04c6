package org.gpuoperator.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

/**
 * The running sums must equal a from-scratch count after any sequence of node updates and removals.
 */
class ClusterRollupTest {

    private static final Operand[] OPS = Operand.values();

    @Test
    void incrementalSumsEqualAFullRecountAfterEveryStep() {
        Random random = new Random(42);
        ClusterRollup rollup = new ClusterRollup();
        Map<String, NodeSummary> truth = new HashMap<>();
        for (int step = 0; step < 5_000; step++) {
            String name = "node-" + random.nextInt(40);
            if (random.nextInt(5) == 0) {
                rollup.remove(name);
                truth.remove(name);
            } else {
                NodeSummary s = randomSummary(name, random);
                rollup.put(s);
                truth.put(name, s);
            }
            assertSameFigures(rollup, truth);
        }
    }

    @Test
    void stuckNodesAreListedByNameAndCappedWhileTheTotalCountsAll() {
        ClusterRollup rollup = new ClusterRollup();
        for (int i = 29; i >= 0; i--) {
            rollup.put(
                    new NodeSummary(
                            String.format("n%02d", i),
                            false,
                            true,
                            null,
                            Set.of(),
                            Set.of(),
                            Set.of(),
                            false,
                            Operand.DRIVER,
                            "waiting",
                            null,
                            null));
        }
        assertThat(rollup.stuckTotal()).isEqualTo(30);
        assertThat(rollup.firstStuck(3))
                .extracting(NodeSummary::name)
                .containsExactly("n00", "n01", "n02");
        rollup.remove("n01");
        assertThat(rollup.firstStuck(3))
                .extracting(NodeSummary::name)
                .containsExactly("n00", "n02", "n03");
    }

    @Test
    void aDriverVersionNoNodeReportsAnyMoreDisappears() {
        ClusterRollup rollup = new ClusterRollup();
        rollup.put(gpu("a", "550.1"));
        rollup.put(gpu("b", "550.1"));
        rollup.put(gpu("c", "560.2"));
        assertThat(rollup.driverVersions())
                .containsExactly(Map.entry("550.1", 2), Map.entry("560.2", 1));
        rollup.put(gpu("c", "550.1"));
        rollup.remove("a");
        assertThat(rollup.driverVersions()).containsExactly(Map.entry("550.1", 2));
    }

    private static NodeSummary gpu(String name, String version) {
        return new NodeSummary(
                name, true, true, version, Set.of(), Set.of(), Set.of(), true, null, null, null,
                null);
    }

    private static NodeSummary randomSummary(String name, Random random) {
        boolean gpu = random.nextBoolean();
        Set<Operand> desired = EnumSet.noneOf(Operand.class);
        Set<Operand> ready = EnumSet.noneOf(Operand.class);
        Set<Operand> updated = EnumSet.noneOf(Operand.class);
        if (gpu) {
            for (Operand op : OPS) {
                if (random.nextBoolean()) {
                    desired.add(op);
                    if (random.nextBoolean()) {
                        ready.add(op);
                    }
                    if (random.nextBoolean()) {
                        updated.add(op);
                    }
                }
            }
        }
        Operand stuck = gpu && random.nextBoolean() ? OPS[random.nextInt(OPS.length)] : null;
        String version = gpu && random.nextBoolean() ? "550." + random.nextInt(3) : null;
        return new NodeSummary(
                name,
                random.nextBoolean(),
                gpu,
                version,
                desired,
                ready,
                updated,
                gpu && stuck == null && random.nextInt(4) > 0,
                stuck,
                stuck == null ? null : "why",
                null,
                null);
    }

    private static void assertSameFigures(ClusterRollup rollup, Map<String, NodeSummary> truth) {
        int gpu = 0;
        int ready = 0;
        boolean nfd = false;
        Map<String, Integer> versions = new TreeMap<>();
        List<String> stuck = new ArrayList<>();
        int[][] counts = new int[OPS.length][3];
        int[] waiting = new int[OPS.length];
        for (NodeSummary s : truth.values()) {
            nfd |= s.nfdLabels();
            if (!s.gpuNode()) {
                continue;
            }
            gpu++;
            ready += s.ready() ? 1 : 0;
            if (s.driverVersion() != null) {
                versions.merge(s.driverVersion(), 1, Integer::sum);
            }
            if (s.stuckAt() != null) {
                stuck.add(s.name());
                waiting[s.stuckAt().ordinal()]++;
            }
            for (Operand op : OPS) {
                counts[op.ordinal()][0] += s.desired().contains(op) ? 1 : 0;
                counts[op.ordinal()][1] += s.readyPods().contains(op) ? 1 : 0;
                counts[op.ordinal()][2] += s.updatedPods().contains(op) ? 1 : 0;
            }
        }
        stuck.sort(null);
        assertThat(rollup.nodeNames()).isEqualTo(truth.keySet());
        assertThat(rollup.gpuNodes()).isEqualTo(gpu);
        assertThat(rollup.readyNodes()).isEqualTo(ready);
        assertThat(rollup.clusterHasNfd()).isEqualTo(nfd);
        assertThat(rollup.driverVersions()).isEqualTo(versions);
        assertThat(rollup.stuckTotal()).isEqualTo(stuck.size());
        assertThat(rollup.firstStuck(5))
                .extracting(NodeSummary::name)
                .isEqualTo(stuck.subList(0, Math.min(5, stuck.size())));
        for (Operand op : OPS) {
            assertThat(rollup.waitingAt().get(op))
                    .as("waiting at " + op.id())
                    .isEqualTo(waiting[op.ordinal()]);
            assertThat(new int[] {rollup.desired(op), rollup.readyPods(op), rollup.updatedPods(op)})
                    .as(op.id())
                    .isEqualTo(counts[op.ordinal()]);
        }
    }
}
