package org.gpuoperator.migmanager.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.junit.jupiter.api.Test;

class MigDecisionTest {

    private static final Layout SEVEN = new Layout(true, List.of("1g.5gb", "1g.5gb", "1g.5gb"));
    private static final String PLUGIN = "nvidia.com/gpu.deploy.device-plugin";

    private static MigObservation seen(
            Map<Integer, Layout> desired,
            Map<Integer, Layout> current,
            Map<String, String> labels,
            List<String> gpuPods,
            List<String> clientPods) {
        return new MigObservation(
                "all-1g.5gb", desired, null, current, labels, Map.of(), gpuPods, clientPods, false);
    }

    @Test
    void aChangePausesTheRunningClientsFirstAndMarksThePendingState() {
        MigStep step =
                MigDecision.next(
                        seen(
                                Map.of(0, SEVEN),
                                Map.of(0, Layout.DISABLED),
                                Map.of(PLUGIN, "true", "nvidia.com/gpu.deploy.dcgm", "false"),
                                List.of(),
                                List.of()));

        assertThat(step).isInstanceOf(MigStep.Pause.class);
        assertThat(((MigStep.Pause) step).changes().labels())
                .containsExactly(
                        Map.entry(MigLabels.STATE, MigLabels.PENDING),
                        Map.entry(PLUGIN, MigLabels.PAUSED));
    }

    @Test
    void pausedClientsWhosePodsRemainAreWaitedFor() {
        MigStep step =
                MigDecision.next(
                        seen(
                                Map.of(0, SEVEN),
                                Map.of(0, Layout.DISABLED),
                                Map.of(PLUGIN, MigLabels.PAUSED, MigLabels.STATE, "pending"),
                                List.of(),
                                List.of("gpu-operator/plugin-x")));

        assertThat(step).isEqualTo(new MigStep.WaitForClients(List.of("gpu-operator/plugin-x")));
    }

    @Test
    void onlyTheGpusThatDifferAreRepartitionedOnceTheClientsAreGone() {
        MigStep step =
                MigDecision.next(
                        seen(
                                Map.of(0, SEVEN, 1, SEVEN),
                                Map.of(0, SEVEN, 1, Layout.DISABLED),
                                Map.of(PLUGIN, MigLabels.PAUSED, MigLabels.STATE, "pending"),
                                List.of(),
                                List.of()));

        assertThat(step).isEqualTo(new MigStep.Apply(Map.of(1, SEVEN)));
    }

    @Test
    void theLayoutInForceReportsSuccessResumesTheClientsAndClearsAnOldError() {
        MigObservation o =
                new MigObservation(
                        "all-1g.5gb",
                        Map.of(0, SEVEN),
                        null,
                        Map.of(0, SEVEN),
                        Map.of(PLUGIN, MigLabels.PAUSED, MigLabels.STATE, "failed"),
                        Map.of(MigLabels.ERROR_ANNOTATION, "old"),
                        List.of("default/job"),
                        List.of(),
                        false);

        MigStep step = MigDecision.next(o);

        assertThat(step).isInstanceOf(MigStep.Finish.class);
        MigStep.NodeChanges changes = ((MigStep.Finish) step).changes();
        assertThat(changes.labels())
                .containsEntry(PLUGIN, "true")
                .containsEntry(MigLabels.STATE, MigLabels.SUCCESS);
        assertThat(changes.annotations()).containsEntry(MigLabels.ERROR_ANNOTATION, null);
    }

    @Test
    void aConvergedNodeWritesNothing() {
        MigStep step =
                MigDecision.next(
                        seen(
                                Map.of(0, SEVEN),
                                Map.of(0, SEVEN),
                                Map.of(PLUGIN, "true", MigLabels.STATE, MigLabels.SUCCESS),
                                List.of("default/job"),
                                List.of()));

        assertThat(step).isInstanceOf(MigStep.Converged.class);
    }

    @Test
    void runningGpuPodsRefuseTheChangeNamingThemAndNothingIsPaused() {
        MigStep step =
                MigDecision.next(
                        seen(
                                Map.of(0, SEVEN),
                                Map.of(0, Layout.DISABLED),
                                Map.of(PLUGIN, "true"),
                                List.of("default/train-0"),
                                List.of()));

        assertThat(step).isInstanceOf(MigStep.Fail.class);
        MigStep.Fail fail = (MigStep.Fail) step;
        assertThat(fail.reason())
                .contains(
                        "all-1g.5gb",
                        "GPUs [0]",
                        "default/train-0",
                        "ALLOW_REPARTITION_WITH_GPU_PODS");
        assertThat(fail.changes().labels())
                .containsExactly(Map.entry(MigLabels.STATE, MigLabels.FAILED));
        assertThat(fail.changes().annotations())
                .containsEntry(MigLabels.ERROR_ANNOTATION, fail.reason());
    }

    @Test
    void runningGpuPodsAreIgnoredWhenThePolicyAllowsIt() {
        MigObservation o =
                new MigObservation(
                        "all-1g.5gb",
                        Map.of(0, SEVEN),
                        null,
                        Map.of(0, Layout.DISABLED),
                        Map.of(PLUGIN, "true"),
                        Map.of(),
                        List.of("default/train-0"),
                        List.of(),
                        true);

        assertThat(MigDecision.next(o)).isInstanceOf(MigStep.Pause.class);
    }

    @Test
    void aConfigThatCannotBePlannedFailsAndResumesClientsPausedEarlier() {
        MigObservation o =
                new MigObservation(
                        "all-9g.99gb",
                        null,
                        "unknown MIG config 'all-9g.99gb'",
                        Map.of(0, Layout.DISABLED),
                        Map.of(PLUGIN, MigLabels.PAUSED, MigLabels.STATE, "pending"),
                        Map.of(),
                        List.of(),
                        List.of(),
                        false);

        MigStep step = MigDecision.next(o);

        assertThat(step).isInstanceOf(MigStep.Fail.class);
        assertThat(((MigStep.Fail) step).changes().labels())
                .containsEntry(PLUGIN, "true")
                .containsEntry(MigLabels.STATE, MigLabels.FAILED);
    }

    @Test
    void noConfigAskedLeavesTheGpusAloneButNeverAClientPaused() {
        MigObservation paused =
                new MigObservation(
                        null,
                        null,
                        null,
                        Map.of(0, SEVEN),
                        Map.of(PLUGIN, MigLabels.PAUSED),
                        Map.of(),
                        List.of(),
                        List.of(),
                        false);
        MigObservation quiet =
                new MigObservation(
                        null,
                        null,
                        null,
                        Map.of(0, SEVEN),
                        Map.of(PLUGIN, "true"),
                        Map.of(),
                        List.of(),
                        List.of(),
                        false);

        assertThat(MigDecision.next(paused))
                .isEqualTo(
                        new MigStep.Finish(
                                new MigStep.NodeChanges(Map.of(PLUGIN, "true"), Map.of())));
        assertThat(MigDecision.next(quiet)).isInstanceOf(MigStep.Converged.class);
    }
}
