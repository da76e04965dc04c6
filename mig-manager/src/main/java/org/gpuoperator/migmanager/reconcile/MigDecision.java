package org.gpuoperator.migmanager.reconcile;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.migmanager.reconcile.MigStep.NodeChanges;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * The MIG manager's choice, a pure function of one look at the node. Level-triggered: it asks only
 * what the node and its GPUs are now, never what happened before, so a manager restarted at any
 * point of a change (clients paused, half the GPUs repartitioned) carries it through, and a label
 * changed mid-way is simply the new goal.
 */
public final class MigDecision {

    /** The env var (and flag) that lets a layout change under running GPU pods. */
    public static final String ALLOW_GPU_PODS_ENV = "ALLOW_REPARTITION_WITH_GPU_PODS";

    private MigDecision() {}

    public static MigStep next(MigObservation o) {
        if (o.configName() == null) {
            // nothing asked: no layout of ours to keep, but never leave a client paused
            NodeChanges resume = new NodeChanges(resumeClients(o.labels()), Map.of());
            return resume.empty() ? new MigStep.Converged() : new MigStep.Finish(resume);
        }
        if (o.planError() != null) {
            return fail(o, o.planError());
        }
        Map<Integer, Layout> changes = new TreeMap<>();
        o.desired()
                .forEach(
                        (gpu, layout) -> {
                            if (!layout.equals(o.current().get(gpu))) {
                                changes.put(gpu, layout);
                            }
                        });
        if (changes.isEmpty()) {
            Map<String, String> labels = resumeClients(o.labels());
            putIfDiffers(labels, o.labels(), MigLabels.STATE, MigLabels.SUCCESS);
            Map<String, String> annotations = new LinkedHashMap<>();
            if (o.annotations().containsKey(MigLabels.ERROR_ANNOTATION)) {
                annotations.put(MigLabels.ERROR_ANNOTATION, null);
            }
            NodeChanges finish = new NodeChanges(labels, annotations);
            return finish.empty() ? new MigStep.Converged() : new MigStep.Finish(finish);
        }
        if (!o.gpuPods().isEmpty() && !o.allowGpuPods()) {
            return fail(
                    o,
                    "config "
                            + o.configName()
                            + " changes GPUs "
                            + changes.keySet()
                            + ", but "
                            + o.gpuPods().size()
                            + " pod(s) on the node hold GPUs: "
                            + String.join(", ", o.gpuPods())
                            + "; it is applied once they are gone (or set "
                            + ALLOW_GPU_PODS_ENV
                            + "=true in migManager.env)");
        }
        Map<String, String> pause = new LinkedHashMap<>();
        putIfDiffers(pause, o.labels(), MigLabels.STATE, MigLabels.PENDING);
        for (String deployLabel : new TreeMap<>(MigLabels.CLIENTS).keySet()) {
            if ("true".equals(o.labels().get(deployLabel))) {
                pause.put(deployLabel, MigLabels.PAUSED);
            }
        }
        if (!pause.isEmpty()) {
            return new MigStep.Pause(new NodeChanges(pause, Map.of()));
        }
        if (!o.clientPods().isEmpty()) {
            return new MigStep.WaitForClients(o.clientPods());
        }
        return new MigStep.Apply(changes);
    }

    /** The env var (and flag) that lets the MIG manager ask for a reboot, as upstream's. */
    public static final String WITH_REBOOT_ENV = "WITH_REBOOT";

    /**
     * A GPU needs a reset to take the new MIG mode: with a reboot allowed, state {@code rebooting}
     * and the clients stay paused until the layout is in force after it; otherwise the change
     * fails, saying how to finish it.
     */
    public static MigStep resetRequired(MigObservation o, String reason, boolean rebootAllowed) {
        if (!rebootAllowed) {
            return fail(
                    o,
                    reason
                            + "; reboot the node (or reset the GPU) to finish it, or set "
                            + WITH_REBOOT_ENV
                            + "=true in migManager.env to have the MIG manager ask for the reboot");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        putIfDiffers(labels, o.labels(), MigLabels.STATE, MigLabels.REBOOTING);
        Map<String, String> annotations = new LinkedHashMap<>();
        if (!reason.equals(o.annotations().get(MigLabels.ERROR_ANNOTATION))) {
            annotations.put(MigLabels.ERROR_ANNOTATION, reason);
        }
        return new MigStep.Reboot(reason, new NodeChanges(labels, annotations));
    }

    /** The failed state with its reason, the clients resumed (the layout stays as it is). */
    private static MigStep fail(MigObservation o, String reason) {
        Map<String, String> labels = resumeClients(o.labels());
        putIfDiffers(labels, o.labels(), MigLabels.STATE, MigLabels.FAILED);
        Map<String, String> annotations = new LinkedHashMap<>();
        if (!reason.equals(o.annotations().get(MigLabels.ERROR_ANNOTATION))) {
            annotations.put(MigLabels.ERROR_ANNOTATION, reason);
        }
        return new MigStep.Fail(reason, new NodeChanges(labels, annotations));
    }

    private static Map<String, String> resumeClients(Map<String, String> labels) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String deployLabel : new TreeMap<>(MigLabels.CLIENTS).keySet()) {
            if (MigLabels.PAUSED.equals(labels.get(deployLabel))) {
                out.put(deployLabel, "true");
            }
        }
        return out;
    }

    private static void putIfDiffers(
            Map<String, String> changes, Map<String, String> labels, String key, String value) {
        if (!value.equals(labels.get(key))) {
            changes.put(key, value);
        }
    }
}
