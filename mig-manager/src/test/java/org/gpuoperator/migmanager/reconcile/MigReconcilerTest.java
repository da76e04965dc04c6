package org.gpuoperator.migmanager.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuResetRequiredException;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.junit.jupiter.api.Test;

class MigReconcilerTest {

    private static final Layout SEVEN =
            new Layout(true, java.util.Collections.nCopies(7, "1g.5gb"));
    private static final String PLUGIN = "nvidia.com/gpu.deploy.device-plugin";

    /** GPUs in memory; a GPU listed in {@code broken} refuses every change. */
    private static final class FakeGpus implements MigPartitioner {
        final Map<Integer, Layout> layouts = new HashMap<>();
        final List<Integer> broken = new ArrayList<>();
        final List<Integer> applied = new ArrayList<>();

        /** GPUs whose MIG mode change waits for a reset (as some GPUs' under NVML). */
        final List<Integer> needReset = new ArrayList<>();

        final Map<Integer, Boolean> pendingMode = new HashMap<>();

        /** The node's reboot: each pending MIG mode is in force, without MIG devices yet. */
        void reboot() {
            pendingMode.forEach((gpu, on) -> layouts.put(gpu, new Layout(on, List.of())));
            pendingMode.clear();
        }

        FakeGpus(int count) {
            for (int i = 0; i < count; i++) {
                layouts.put(i, Layout.DISABLED);
            }
        }

        @Override
        public Map<String, Gpu.MigAttributes> profiles(int gpu) {
            return Map.of();
        }

        @Override
        public Layout layout(int gpu) {
            return layouts.get(gpu);
        }

        @Override
        public void apply(int gpu, Layout layout) {
            if (broken.contains(gpu)) {
                throw new GpuSourceException("NVML: In use by another client");
            }
            if (needReset.contains(gpu) && layout.enabled() != layouts.get(gpu).enabled()) {
                pendingMode.put(gpu, layout.enabled());
                throw new GpuResetRequiredException(
                        "MIG mode "
                                + (layout.enabled() ? "enabled" : "disabled")
                                + " is pending a GPU reset");
            }
            applied.add(gpu);
            layouts.put(gpu, layout);
        }
    }

    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private final List<Map<Integer, Layout>> published = new ArrayList<>();
    private Instant now = Instant.parse("2026-12-03T00:00:00Z");

    private MigReconciler reconciler(FakeNode node, FakeGpus gpus, Duration clientWait) {
        return reconciler(node, gpus, clientWait, null);
    }

    private MigReconciler reconciler(
            FakeNode node, FakeGpus gpus, Duration clientWait, HostReboot reboot) {
        MigReconciler.Planner planner =
                (name, current) -> {
                    Map<Integer, Layout> out = new HashMap<>();
                    for (int gpu : current.keySet()) {
                        out.put(
                                gpu,
                                switch (name) {
                                    case "all-1g.5gb" -> SEVEN;
                                    case "all-disabled" -> Layout.DISABLED;
                                    default ->
                                            throw new IllegalArgumentException(
                                                    "unknown MIG config '" + name + "'");
                                });
                    }
                    return out;
                };
        return new MigReconciler(
                node,
                gpus,
                gpus.layouts.size(),
                planner,
                published::add,
                "all-disabled",
                false,
                clientWait,
                d -> now = now.plus(d),
                new Clock() {
                    @Override
                    public ZoneOffset getZone() {
                        return ZoneOffset.UTC;
                    }

                    @Override
                    public Clock withZone(java.time.ZoneId zone) {
                        return this;
                    }

                    @Override
                    public Instant instant() {
                        return now;
                    }
                },
                new EventLog("mig-manager", new PrintStream(logged, true, StandardCharsets.UTF_8)),
                reboot);
    }

    private String log() {
        return logged.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLabelChangePausesTheClientsRepartitionsAndResumesThem() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        node.clientPodsLinger = 3;
        FakeGpus gpus = new FakeGpus(2);

        MigStep end = reconciler(node, gpus, Duration.ofMinutes(5)).reconcile();

        assertThat(end).isInstanceOf(MigStep.Finish.class);
        assertThat(gpus.layouts).containsEntry(0, SEVEN).containsEntry(1, SEVEN);
        assertThat(node.labels).containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
        MigLabels.CLIENTS.keySet().forEach(k -> assertThat(node.labels).containsEntry(k, "true"));
        // the GPUs changed only after every client had been paused and its pods were gone
        assertThat(node.patches.get(0).labels())
                .containsEntry(MigLabels.STATE, MigLabels.PENDING)
                .containsEntry(PLUGIN, MigLabels.PAUSED);
        assertThat(log())
                .contains("event=mig-config-pending", "event=waiting-for-clients")
                .contains("event=gpu-repartitioned", "event=mig-config-applied");
        assertThat(log().indexOf("waiting-for-clients"))
                .isLessThan(log().indexOf("gpu-repartitioned"));
        // the new layout is published before the clients come back
        assertThat(published).containsExactly(Map.of(0, SEVEN, 1, SEVEN));
    }

    @Test
    void aManagerRestartedMidChangeFinishesIt() throws Exception {
        // killed after pausing the clients and repartitioning GPU 0 of 2
        FakeNode node = new FakeNode();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        node.labels.put(MigLabels.STATE, MigLabels.PENDING);
        MigLabels.CLIENTS.keySet().forEach(k -> node.labels.put(k, MigLabels.PAUSED));
        FakeGpus gpus = new FakeGpus(2);
        gpus.layouts.put(0, SEVEN);

        MigStep end = reconciler(node, gpus, Duration.ofMinutes(5)).reconcile();

        assertThat(end).isInstanceOf(MigStep.Finish.class);
        assertThat(gpus.applied).containsExactly(1);
        assertThat(node.labels).containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
        MigLabels.CLIENTS.keySet().forEach(k -> assertThat(node.labels).containsEntry(k, "true"));
    }

    @Test
    void aSecondReconcileOfAConvergedNodeWritesNothing() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        FakeGpus gpus = new FakeGpus(1);
        MigReconciler reconciler = reconciler(node, gpus, Duration.ofMinutes(5));
        reconciler.reconcile();
        int patches = node.patches.size();

        assertThat(reconciler.reconcile()).isInstanceOf(MigStep.Converged.class);
        assertThat(node.patches).hasSize(patches);
    }

    @Test
    void aGpuThatRefusesTheChangeFailsWithItsReasonAndTheClientsComeBack() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        FakeGpus gpus = new FakeGpus(2);
        gpus.broken.add(1);

        MigStep end = reconciler(node, gpus, Duration.ofMinutes(5)).reconcile();

        assertThat(end).isInstanceOf(MigStep.Fail.class);
        assertThat(node.labels).containsEntry(MigLabels.STATE, MigLabels.FAILED);
        assertThat(node.annotations.get(MigLabels.ERROR_ANNOTATION))
                .isEqualTo("config all-1g.5gb: GPU 1: NVML: In use by another client");
        MigLabels.CLIENTS.keySet().forEach(k -> assertThat(node.labels).containsEntry(k, "true"));
        assertThat(log()).contains("event=mig-config-failed");
    }

    @Test
    void clientsThatDoNotLeaveFailTheChangeAfterTheWait() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        node.clientPodsLinger = Integer.MAX_VALUE;
        FakeGpus gpus = new FakeGpus(1);

        MigStep end = reconciler(node, gpus, Duration.ofSeconds(10)).reconcile();

        assertThat(end).isInstanceOf(MigStep.Fail.class);
        assertThat(((MigStep.Fail) end).reason())
                .contains("did not leave the node within 10 s", "nvidia-device-plugin-daemonset");
        assertThat(gpus.applied).isEmpty();
        assertThat(node.labels).containsEntry(PLUGIN, "true");
    }

    @Test
    void withoutALabelTheDefaultConfigIsApplied() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        FakeGpus gpus = new FakeGpus(1);
        gpus.layouts.put(0, SEVEN);

        reconciler(node, gpus, Duration.ofMinutes(5)).reconcile();

        assertThat(gpus.layouts).containsEntry(0, Layout.DISABLED);
        assertThat(node.labels).containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
    }

    @Test
    void aGpuThatNeedsAResetMeansRebootingWithTheClientsPausedThenSuccessAfterTheReboot()
            throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        FakeGpus gpus = new FakeGpus(2);
        gpus.needReset.add(0);
        List<String> requested = new ArrayList<>();

        MigStep end = reconciler(node, gpus, Duration.ofMinutes(5), requested::add).reconcile();

        assertThat(end).isInstanceOf(MigStep.Reboot.class);
        assertThat(node.labels).containsEntry(MigLabels.STATE, MigLabels.REBOOTING);
        assertThat(node.annotations.get(MigLabels.ERROR_ANNOTATION))
                .isEqualTo("config all-1g.5gb: GPU 0: MIG mode enabled is pending a GPU reset");
        assertThat(requested).containsExactly(node.annotations.get(MigLabels.ERROR_ANNOTATION));
        // the GPU that needed no reset was repartitioned; the clients wait for the reboot
        assertThat(gpus.layouts).containsEntry(1, SEVEN);
        assertThat(node.labels).containsEntry(PLUGIN, MigLabels.PAUSED);
        assertThat(log()).contains("event=mig-reboot-requested");

        gpus.reboot(); // the node came back: a new MIG manager looks again
        MigStep after = reconciler(node, gpus, Duration.ofMinutes(5), requested::add).reconcile();

        assertThat(after).isInstanceOf(MigStep.Finish.class);
        assertThat(gpus.layouts).containsEntry(0, SEVEN).containsEntry(1, SEVEN);
        assertThat(node.labels)
                .containsEntry(MigLabels.STATE, MigLabels.SUCCESS)
                .containsEntry(PLUGIN, "true");
        assertThat(node.annotations).doesNotContainKey(MigLabels.ERROR_ANNOTATION);
        assertThat(requested).hasSize(1);
    }

    @Test
    void withoutWithRebootAResetNeedFailsSayingHowToFinishTheChange() throws Exception {
        FakeNode node = new FakeNode().withClientsDeployed();
        node.labels.put(MigLabels.CONFIG, "all-1g.5gb");
        FakeGpus gpus = new FakeGpus(1);
        gpus.needReset.add(0);

        MigStep end = reconciler(node, gpus, Duration.ofMinutes(5)).reconcile();

        assertThat(end).isInstanceOf(MigStep.Fail.class);
        assertThat(node.labels)
                .containsEntry(MigLabels.STATE, MigLabels.FAILED)
                .containsEntry(PLUGIN, "true");
        assertThat(node.annotations.get(MigLabels.ERROR_ANNOTATION))
                .contains("pending a GPU reset")
                .contains("reboot the node (or reset the GPU)")
                .contains("WITH_REBOOT=true");
    }

    @Test
    void theSentinelSaysWhyAndIsReplacedWhole(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path sentinel = dir.resolve("mig-manager/reboot-required");
        HostReboot.sentinel(sentinel).request("GPU 0 needs a reset");
        HostReboot.sentinel(sentinel).request("GPU 1 needs a reset");
        assertThat(java.nio.file.Files.readString(sentinel))
                .startsWith("requested-at=")
                .contains("reason=GPU 1 needs a reset")
                .doesNotContain("GPU 0");
        try (var files = java.nio.file.Files.list(sentinel.getParent())) {
            assertThat(files).containsExactly(sentinel);
        }
    }
}
