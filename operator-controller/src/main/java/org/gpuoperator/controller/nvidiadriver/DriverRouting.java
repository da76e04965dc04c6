package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a node's driver comes from in NVIDIADriver mode (pure, per node): its NVIDIADriver, its
 * pool, and the pod template hash of the pool's DaemonSet. What the roll-out (the pool label) and
 * the driver upgrade (the outdated driver pods) ask per node; equal when the drivers and their
 * DaemonSets are, so that nothing is re-planned while they stay the same.
 *
 * @param selectors every NVIDIADriver's selection
 * @param hashOfPool pool id → its DaemonSet's pod template hash
 */
public record DriverRouting(List<DriverSelector> selectors, Map<String, String> hashOfPool) {

    public DriverRouting {
        selectors = List.copyOf(selectors);
        hashOfPool = Map.copyOf(hashOfPool);
    }

    /** The node's NVIDIADriver; none when no driver or several claim it. */
    public Optional<String> driverOf(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return DriverAssignment.driverOf(labels == null ? Map.of() : labels, selectors);
    }

    /** The node's pool id ({@link DriverPools#POOL_LABEL}'s value), or none. */
    public Optional<String> poolOf(Node node) {
        return driverOf(node).map(d -> DriverPools.poolId(d, NodeOs.of(node)));
    }

    /** The pod template hash of the node's pool's DaemonSet, or null. */
    public String templateHashOf(Node node) {
        return poolOf(node).map(hashOfPool::get).orElse(null);
    }
}
