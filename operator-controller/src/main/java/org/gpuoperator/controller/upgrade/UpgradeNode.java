package org.gpuoperator.controller.upgrade;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.controller.nodes.ValidationReport;

/**
 * One GPU node with a managed driver, as the upgrade machine sees it: everything it decides on,
 * read by the wiring from the caches.
 *
 * @param ready the node's Ready condition is True
 * @param unschedulable {@code spec.unschedulable} (cordoned)
 * @param driverPod the driver pod on the node, if any
 * @param validator the validator pod on the node, if any
 * @param driverUsers the operand pods on the node that use the driver (device plugin, feature
 *     discovery, exporter, the validator: everything but the driver and the toolkit)
 * @param pods the other pods on the node (GPU pods, jobs, anything a drain may evict)
 */
public record UpgradeNode(
        String name,
        boolean ready,
        boolean unschedulable,
        Map<String, String> labels,
        Map<String, String> annotations,
        Optional<DriverPod> driverPod,
        Optional<ValidatorPod> validator,
        List<OperandPod> driverUsers,
        List<NodePod> pods) {

    public UpgradeNode {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        driverUsers = driverUsers == null ? List.of() : List.copyOf(driverUsers);
        pods = pods == null ? List.of() : List.copyOf(pods);
    }

    /**
     * An operand pod that opens the driver (NVML, device nodes).
     *
     * @param createdAt its creation time, or null
     */
    public record OperandPod(
            String namespace, String name, Instant createdAt, boolean terminating) {}

    /**
     * @param inSync the pod runs the driver DaemonSet's current revision (pod-template-generation
     *     or controller-revision-hash equal to the DaemonSet's)
     * @param version the driver version the pod runs (for the last good version), or null
     * @param startedAt when the pod started (the validator must be Ready after it), or null
     * @param restartOnly outdated, but its driver configuration digest is the DaemonSet's: the
     *     installed driver stays, only the pod is replaced (no eviction, no drain)
     */
    public record DriverPod(
            String namespace,
            String name,
            boolean inSync,
            boolean ready,
            int restartCount,
            String version,
            Instant startedAt,
            boolean restartOnly) {

        /** A pod whose replacement changes the driver (when outdated). */
        public DriverPod(
                String namespace,
                String name,
                boolean inSync,
                boolean ready,
                int restartCount,
                String version,
                Instant startedAt) {
            this(namespace, name, inSync, ready, restartCount, version, startedAt, false);
        }
    }

    /**
     * @param readySince when its Ready condition last turned True, or null
     * @param terminating it is being deleted
     */
    public record ValidatorPod(
            String namespace, String name, boolean ready, Instant readySince, boolean terminating) {

        /** A pod that is Ready, or not, since the given time (tests). */
        public static ValidatorPod of(boolean ready, Instant readySince) {
            return new ValidatorPod(
                    "gpu-operator", "nvidia-operator-validator", ready, readySince, false);
        }
    }

    public UpgradeState state() {
        return UpgradeState.fromLabel(labels.get(UpgradeKeys.STATE_LABEL));
    }

    public boolean skipped() {
        return "true".equals(labels.get(UpgradeKeys.SKIP_LABEL));
    }

    public String annotation(String key) {
        return annotations.get(key);
    }

    /** The driver pod runs an old revision, or an admin asked for the upgrade. */
    public boolean needsUpgrade() {
        return "true".equals(annotations.get(UpgradeKeys.UPGRADE_REQUESTED))
                || driverPod.map(p -> !p.inSync()).orElse(false);
    }

    /** The driver pod runs the current revision and is Ready. */
    public boolean driverCurrentAndReady() {
        return driverPod.map(p -> p.inSync() && p.ready()).orElse(false);
    }

    /**
     * The validator is Ready, and Ready since the current driver pod started (a validator that was
     * Ready before the restart has not validated the new driver).
     */
    public boolean validatedCurrentDriver() {
        if (validator.isPresent() && validator.get().terminating()) {
            return false;
        }
        if (validator.isEmpty() || !validator.get().ready()) {
            return false;
        }
        Instant since = validator.get().readySince();
        Instant started = driverPod.map(DriverPod::startedAt).orElse(null);
        return since == null || started == null || !since.isBefore(started);
    }

    /**
     * The validator is Ready since before the current driver pod started: it may not notice the
     * restart before its next recheck, so it is restarted to validate the new driver.
     */
    public boolean validatorReadyFromBefore() {
        if (validator.isEmpty() || !validator.get().ready() || validator.get().terminating()) {
            return false;
        }
        Instant since = validator.get().readySince();
        Instant started = driverPod.map(DriverPod::startedAt).orElse(null);
        return since != null && started != null && since.isBefore(started);
    }

    /**
     * What the validator pod on the node reported as failed while it is not Ready, e.g. {@code
     * toolkit: ...}; null when it reports no failed step, is Ready, or the report is an earlier
     * pod's (one from before the driver restart).
     */
    public String validatorFailure() {
        if (validator.isEmpty() || validator.get().ready() || validator.get().terminating()) {
            return null;
        }
        ValidationReport report = ValidationReport.of(annotations);
        if (!validator.get().name().equals(report.pod())) {
            return null;
        }
        String step = report.blockingStep();
        if (step == null || !"failed".equals(report.steps().get(step))) {
            return null;
        }
        return report.summary();
    }
}
