package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeAffinityBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.upgrade.NodePod;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeNodes;
import org.gpuoperator.controller.upgrade.UpgradeState;

/**
 * A node's driver moving from one driver DaemonSet to another (pure): switching NVIDIADriver mode
 * on or off, or a node moving between NVIDIADrivers. The old DaemonSet is deleted with orphan
 * propagation, so its driver pod keeps running; the node keeps its routing labels (pool and owner)
 * until the driver upgrade has emptied it of GPU pods and reached {@code pod-restart-required}.
 * Only then do the labels move, and the new DaemonSet's pod replaces the old one. So no node loses
 * its driver under running GPU pods, and the nodes move under the upgrade policy's slots.
 *
 * <p>The ClusterPolicy's driver DaemonSet does not select a node that still carries a pool label
 * ({@link #excludePoolNodes}): leaving NVIDIADriver mode hands nodes over the same way.
 */
public final class DriverHandover {

    /** Upgrade states from which the node's driver pod may be replaced (its GPU pods are gone). */
    static final Set<UpgradeState> REPLACEABLE =
            Set.of(
                    UpgradeState.POD_RESTART_REQUIRED,
                    UpgradeState.VALIDATION_REQUIRED,
                    UpgradeState.UNCORDON_REQUIRED);

    private DriverHandover() {}

    /**
     * Whether automatic upgrades govern a node's driver: the ClusterPolicy's upgrade policy, or in
     * NVIDIADriver mode its NVIDIADriver's (a value, so the roll-out's inputs compare equal while
     * the policies stay the same).
     *
     * @param byDriver NVIDIADriver → its policy's autoUpgrade
     */
    public record AutoUpgrade(boolean clusterPolicy, Map<String, Boolean> byDriver) {

        /** No automatic upgrades: every node's labels move at once. */
        public static final AutoUpgrade OFF = new AutoUpgrade(false, Map.of());

        public AutoUpgrade {
            byDriver = Map.copyOf(byDriver);
        }

        /** For a node of this NVIDIADriver, or of the ClusterPolicy's driver (null). */
        public boolean of(String driver) {
            return driver == null ? clusterPolicy : byDriver.getOrDefault(driver, clusterPolicy);
        }
    }

    /**
     * {@link #holdsLabels(List, boolean, String, UpgradeState, boolean)} for a node as the caches
     * show it.
     *
     * @param labels the node's labels, with the deploy label as the roll-out sets it
     * @param managed the driver is enabled and the node is a GPU node
     * @param operandPods the operand pods on the node (the driver pods among them count)
     * @param routing NVIDIADriver mode's routing, null in ClusterPolicy mode
     */
    public static boolean holdsLabels(
            Node node,
            Map<String, String> labels,
            boolean managed,
            List<Pod> operandPods,
            DriverRouting routing,
            AutoUpgrade autoUpgrade) {
        String driver = routing == null ? null : routing.driverOf(node).orElse(null);
        boolean hasTarget =
                managed
                        && "true".equals(labels.get(Operand.DRIVER.deployLabel()))
                        && (routing == null || driver != null);
        return holdsLabels(
                operandPods.stream()
                        .filter(p -> UpgradeNodes.isOperandPod(p, Operand.DRIVER))
                        .toList(),
                hasTarget,
                routing == null ? null : routing.poolOf(node).orElse(null),
                UpgradeState.fromLabel(labels.get(UpgradeKeys.STATE_LABEL)),
                autoUpgrade.of(driver));
    }

    /**
     * Whether the node keeps the routing labels it has rather than take its target's now: a driver
     * pod that is not the target DaemonSet's runs there, and the upgrade will replace it (automatic
     * upgrades on) but has not reached the state where it may.
     *
     * @param driverPods the driver pods on the node
     * @param target the node's driver DaemonSet: its pool id, or null for the ClusterPolicy's
     * @param hasTarget whether any driver DaemonSet is to run on the node; without one the labels
     *     move at once (the admin took the node out of every driver)
     * @param state the node's upgrade state label
     * @param autoUpgrade whether the upgrade that governs the node moves nodes by itself; without
     *     it the labels move at once, as upstream's
     */
    public static boolean holdsLabels(
            List<Pod> driverPods,
            boolean hasTarget,
            String target,
            UpgradeState state,
            boolean autoUpgrade) {
        if (!hasTarget || !autoUpgrade || REPLACEABLE.contains(state)) {
            return false;
        }
        return driverPods.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .anyMatch(p -> !isTargets(p, target));
    }

    /**
     * Whether the driver pod is the target DaemonSet's: a DaemonSet controls it (it is no orphan)
     * and its pool label is the target's (none for the ClusterPolicy's DaemonSet).
     */
    public static boolean isTargets(Pod pod, String target) {
        return NodePod.hasController(pod) && Objects.equals(poolOf(pod), target);
    }

    /** The pool label of a driver pod; null for the ClusterPolicy's DaemonSet's. */
    public static String poolOf(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        return labels == null ? null : labels.get(DriverPools.POOL_LABEL);
    }

    /** Whether the pod was made by the DaemonSet with this uid. */
    public static boolean ownedBy(Pod pod, String daemonSetUid) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(o -> daemonSetUid.equals(o.getUid()));
    }

    /**
     * The ClusterPolicy's driver DaemonSet with a required node affinity: no pool label on the
     * node. Added after the pod template hash was taken, so that no existing driver pod becomes
     * outdated (the DaemonSet is OnDelete): it only keeps the DaemonSet off nodes an NVIDIADriver
     * still runs.
     */
    public static void excludePoolNodes(DaemonSet ds) {
        var spec = ds.getSpec().getTemplate().getSpec();
        NodeSelectorRequirement noPool =
                new NodeSelectorRequirement(DriverPools.POOL_LABEL, "DoesNotExist", null);
        NodeAffinity affinity =
                spec.getAffinity() == null || spec.getAffinity().getNodeAffinity() == null
                        ? new NodeAffinity()
                        : spec.getAffinity().getNodeAffinity();
        List<NodeSelectorTerm> terms = new ArrayList<>();
        if (affinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
            for (NodeSelectorTerm t :
                    affinity.getRequiredDuringSchedulingIgnoredDuringExecution()
                            .getNodeSelectorTerms()) {
                List<NodeSelectorRequirement> expressions =
                        new ArrayList<>(
                                t.getMatchExpressions() == null
                                        ? List.of()
                                        : t.getMatchExpressions());
                expressions.add(noPool);
                terms.add(new NodeSelectorTerm(expressions, t.getMatchFields()));
            }
        }
        if (terms.isEmpty()) {
            terms.add(new NodeSelectorTerm(List.of(noPool), null));
        }
        NodeAffinity merged =
                new NodeAffinityBuilder(affinity)
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .withNodeSelectorTerms(terms)
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .build();
        if (spec.getAffinity() == null) {
            spec.setAffinity(new io.fabric8.kubernetes.api.model.Affinity());
        }
        spec.getAffinity().setNodeAffinity(merged);
    }
}
