package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.gpuoperator.api.v1.ClusterPolicyConditions;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverState;
import org.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import org.gpuoperator.controller.status.ReadyConditions;

/**
 * The status of each NVIDIADriver (pure): {@code ready} when its driver pods are Ready on every
 * node it has, else {@code notReady}; conditions {@code Ready} and {@code Error} as the
 * ClusterPolicy's, with reason {@code ConflictingNodeSelector} (upstream's), {@code InvalidSpec},
 * {@code DriverNotReady} or {@code Reconciled}.
 */
public final class NvidiaDriverStatuses {

    /** Nodes named in a not-ready message; the rest are counted. */
    static final int NAMED_NODES = 5;

    private NvidiaDriverStatuses() {}

    /**
     * @param driverReady whether a node's driver is ready: the pod of its pool Ready, or a driver
     *     pre-installed on the host
     * @param previous each NVIDIADriver's current status (lastTransitionTime is kept while a
     *     condition's status stays)
     * @param now RFC 3339, seconds
     */
    public static Map<String, NVIDIADriverStatus> of(
            DriverPoolPlan plan,
            Predicate<String> driverReady,
            String namespace,
            Map<String, NVIDIADriverStatus> previous,
            String now) {
        Map<String, NVIDIADriverStatus> out = new TreeMap<>();
        for (String name : plan.drivers().keySet()) {
            NVIDIADriverStatus before = previous.get(name);
            List<Condition> prev = before == null ? null : before.getConditions();
            NVIDIADriverStatus s = new NVIDIADriverStatus();
            s.setNamespace(namespace);
            DriverAssignment.Conflict conflict = plan.assignment().conflicts().get(name);
            String error = plan.errors().get(name);
            List<String> nodes = plan.assignment().nodesOf(name);
            List<String> notReady = nodes.stream().filter(driverReady.negate()).toList();
            if (conflict != null) {
                s.setState(NVIDIADriverState.NOT_READY);
                s.setConditions(
                        ReadyConditions.error(
                                NVIDIADriver.REASON_CONFLICTING_NODE_SELECTOR,
                                conflict.message(),
                                prev,
                                now));
            } else if (error != null) {
                s.setState(NVIDIADriverState.NOT_READY);
                s.setConditions(
                        ReadyConditions.error(
                                ClusterPolicyConditions.REASON_INVALID_SPEC,
                                error
                                        + "; driver DaemonSets it already has are kept as they"
                                        + " are until the spec is valid",
                                prev,
                                now));
            } else if (!notReady.isEmpty()) {
                s.setState(NVIDIADriverState.NOT_READY);
                String named =
                        notReady.stream().limit(NAMED_NODES).collect(Collectors.joining(", "))
                                + (notReady.size() > NAMED_NODES ? ", ..." : "");
                s.setConditions(
                        ReadyConditions.of(
                                false,
                                ClusterPolicyConditions.REASON_DRIVER_NOT_READY,
                                "driver not ready on "
                                        + notReady.size()
                                        + " of "
                                        + nodes.size()
                                        + " node(s): "
                                        + named,
                                prev,
                                now));
            } else {
                s.setState(NVIDIADriverState.READY);
                List<String> daemonSets =
                        plan.poolsOf(name).stream().map(DriverPools.Pool::daemonSetName).toList();
                s.setConditions(
                        ReadyConditions.of(
                                true,
                                ClusterPolicyConditions.REASON_RECONCILED,
                                nodes.isEmpty()
                                        ? "no GPU node selected"
                                        : "driver ready on "
                                                + nodes.size()
                                                + " node(s); DaemonSets "
                                                + daemonSets,
                                prev,
                                now));
            }
            List<org.gpuoperator.api.v1.PolicyWarning> warnings =
                    NvidiaDriverFields.warnings(plan.drivers().get(name).getSpec());
            s.setWarnings(warnings.isEmpty() ? null : warnings);
            out.put(name, s);
        }
        return out;
    }

    /**
     * The Event message for a conflict that appeared or changed: the new status's conflict message
     * when the previous status had none or another; empty otherwise.
     */
    public static Optional<String> newConflict(
            NVIDIADriverStatus previous, NVIDIADriverStatus next) {
        Optional<String> now = conflictOf(next);
        return now.isPresent() && !now.equals(conflictOf(previous)) ? now : Optional.empty();
    }

    /** The message of the status's {@code Error} condition of reason ConflictingNodeSelector. */
    static Optional<String> conflictOf(NVIDIADriverStatus status) {
        if (status == null || status.getConditions() == null) {
            return Optional.empty();
        }
        return status.getConditions().stream()
                .filter(
                        c ->
                                "Error".equals(c.getType())
                                        && "True".equals(c.getStatus())
                                        && NVIDIADriver.REASON_CONFLICTING_NODE_SELECTOR.equals(
                                                c.getReason()))
                .map(Condition::getMessage)
                .findFirst();
    }

    /** The status NVIDIADrivers get while the ClusterPolicy does not use them. */
    public static NVIDIADriverStatus disabled(String namespace) {
        NVIDIADriverStatus s = new NVIDIADriverStatus();
        s.setState(NVIDIADriverState.DISABLED);
        s.setNamespace(namespace);
        return s;
    }
}
