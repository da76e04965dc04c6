package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a node's driver comes from in NVIDIADriver mode (pure, per node): its NVIDIADriver, its
 * pool, and the pod template hash of the pool's DaemonSet. What the roll-out (the pool label) and
 * the driver upgrade (the outdated driver pods) ask per node; equal when the drivers and their
 * DaemonSets are, so that nothing is re-planned while they stay the same. A contested node keeps
 * its previous owner ({@link DriverAssignment}): the NVIDIADriver of the pool its label names now.
 *
 * @param selectors every NVIDIADriver's selection
 * @param hashOfPool pool id → its DaemonSet's pod template hash
 * @param driverOfPool pool id → the NVIDIADriver of its existing DaemonSet ({@link
 *     DriverPools#DRIVER_ANNOTATION})
 */
public record DriverRouting(
        List<DriverSelector> selectors,
        Map<String, String> hashOfPool,
        Map<String, String> driverOfPool) {

    public DriverRouting {
        selectors = List.copyOf(selectors);
        hashOfPool = Map.copyOf(hashOfPool);
        driverOfPool = Map.copyOf(driverOfPool);
    }

    public DriverRouting(List<DriverSelector> selectors, Map<String, String> hashOfPool) {
        this(selectors, hashOfPool, Map.of());
    }

    /**
     * The NVIDIADriver whose pool the node is in now: the driver of the existing DaemonSet of the
     * pool its label names, else the driver whose pool id for this node is that label; null when
     * the node has no pool label or the pool is no known driver's.
     */
    public static String previousOwner(
            Map<String, String> labels,
            NodeOs os,
            List<DriverSelector> selectors,
            Map<String, String> driverOfPool) {
        String pool = labels.get(DriverPools.POOL_LABEL);
        if (pool == null) {
            return null;
        }
        String owner = driverOfPool.get(pool);
        if (owner != null) {
            return owner;
        }
        return selectors.stream()
                .map(DriverSelector::name)
                .filter(d -> pool.equals(DriverPools.poolId(d, os)))
                .findFirst()
                .orElse(null);
    }

    /** The node's previous owner ({@link #previousOwner(Map, NodeOs, List, Map)}), or null. */
    public String previousOwner(Node node) {
        return previousOwner(labelsOf(node), NodeOs.of(node), selectors, driverOfPool);
    }

    /** The node's NVIDIADriver; none when no driver claims it, or several and it had none. */
    public Optional<String> driverOf(Node node) {
        return DriverAssignment.driverOf(labelsOf(node), selectors, previousOwner(node));
    }

    /**
     * The node's owner label ({@link DriverPools#OWNER_LABEL}): its NVIDIADriver, when that name
     * can be a label value.
     */
    public Optional<String> ownerOf(Node node) {
        return driverOf(node).filter(DriverPools::isLabelValue);
    }

    /** The node's pool id ({@link DriverPools#POOL_LABEL}'s value), or none. */
    public Optional<String> poolOf(Node node) {
        return driverOf(node).map(d -> DriverPools.poolId(d, NodeOs.of(node)));
    }

    /** The pod template hash of the node's pool's DaemonSet, or null. */
    public String templateHashOf(Node node) {
        return poolOf(node).map(hashOfPool::get).orElse(null);
    }

    private static Map<String, String> labelsOf(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels == null ? Map.of() : labels;
    }
}
