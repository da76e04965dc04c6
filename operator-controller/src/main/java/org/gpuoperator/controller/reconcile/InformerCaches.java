package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.apply.ResourceApplier;
import org.gpuoperator.controller.upgrade.GpuClaims;

/**
 * The informers' caches, as the rollout and the applier read them. Connected once JOSDK has built
 * the event sources ({@link ClusterPolicyReconciler#prepareEventSources}); the collaborators are
 * created before that.
 */
final class InformerCaches
        implements NodeRollout.Caches, DriverUpgrade.Caches, ResourceApplier.LiveCache {

    static final String PODS_BY_NODE = "byNode";

    private volatile InformerEventSource<Node, ClusterPolicy> nodes;
    private volatile InformerEventSource<Pod, ClusterPolicy> pods;
    private volatile InformerEventSource<DaemonSet, ClusterPolicy> daemonSets;
    private volatile InformerEventSource<Pod, ClusterPolicy> nodePods;
    private volatile GpuClaims gpuClaims = GpuClaims.UNREADABLE;

    void connect(
            InformerEventSource<Node, ClusterPolicy> nodes,
            InformerEventSource<Pod, ClusterPolicy> pods,
            InformerEventSource<DaemonSet, ClusterPolicy> daemonSets,
            InformerEventSource<Pod, ClusterPolicy> nodePods) {
        this.nodes = nodes;
        this.pods = pods;
        this.daemonSets = daemonSets;
        this.nodePods = nodePods;
    }

    @Override
    public Stream<Node> nodes() {
        return nodes.list();
    }

    @Override
    public Optional<Node> node(String name) {
        return nodes.get(new ResourceID(name));
    }

    @Override
    public List<Pod> operandPodsOn(String node) {
        return pods.byIndex(PODS_BY_NODE, node);
    }

    /** Every pod on the node, in any namespace (the driver upgrade evicts and waits for them). */
    @Override
    public List<Pod> podsOn(String node) {
        return nodePods.byIndex(PODS_BY_NODE, node);
    }

    /** The ResourceClaims the driver upgrade reads ({@link ResourceClaimCache}). */
    void gpuClaims(GpuClaims claims) {
        this.gpuClaims = claims;
    }

    @Override
    public GpuClaims gpuClaims() {
        return gpuClaims;
    }

    @Override
    public Stream<Pod> operandPods() {
        return pods.list();
    }

    /** Our operand DaemonSets in the namespace (the pools' among them, for the prune). */
    Stream<DaemonSet> daemonSets() {
        return daemonSets == null ? Stream.empty() : daemonSets.list();
    }

    /** DaemonSets come from their informer; the other kinds have none. */
    @Override
    public Optional<Optional<HasMetadata>> get(ObjectRef ref) {
        if (ref.kind() != DaemonSet.class || daemonSets == null) {
            return Optional.empty();
        }
        return Optional.of(
                daemonSets
                        .get(new ResourceID(ref.name(), ref.namespace()))
                        .map(HasMetadata.class::cast));
    }

    /**
     * Our writes go back into the informer (JOSDK's recent-update cache), so the next read is not
     * stale.
     */
    @Override
    public void written(HasMetadata result, HasMetadata previous) {
        if (result instanceof DaemonSet ds && daemonSets != null) {
            ResourceID id = ResourceID.fromResource(ds);
            if (previous == null) {
                daemonSets.handleRecentResourceCreate(id, ds);
            } else {
                daemonSets.handleRecentResourceUpdate(id, ds, (DaemonSet) previous);
            }
        }
    }
}
