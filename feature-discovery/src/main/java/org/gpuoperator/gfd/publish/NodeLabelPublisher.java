package org.gpuoperator.gfd.publish;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.SortedMap;
import org.gpuoperator.gfd.labels.GfdKeys;
import org.gpuoperator.node.labels.LabelOwnership;
import org.gpuoperator.node.labels.NodeLabelPatcher;

/**
 * Publishes the labels straight onto the Node object (when NFD's NodeFeature API is not there) with
 * one JSON patch that names only the keys that change, so a concurrent writer of other labels is
 * never overwritten. Needs RBAC {@code get} and {@code patch} on {@code nodes}.
 */
public final class NodeLabelPublisher implements LabelPublisher {

    /** The GFD keys this agent set, so that it removes its own stale labels and nobody else's. */
    public static final String OWNED_KEYS_ANNOTATION = "nvidia.com/gfd.labels";

    static final LabelOwnership OWNERSHIP =
            new LabelOwnership(OWNED_KEYS_ANNOTATION, GfdKeys::owned);

    private final NodeLabelPatcher patcher;

    public NodeLabelPublisher(KubernetesClient client, String nodeName) {
        this.patcher = new NodeLabelPatcher(client, nodeName, OWNERSHIP);
    }

    @Override
    public Outcome publish(SortedMap<String, String> labels) {
        try {
            NodeLabelPatcher.Outcome o = patcher.apply(labels);
            return o.changed() ? new Outcome(true, o.set(), o.removed()) : Outcome.UNCHANGED;
        } catch (NodeLabelPatcher.PatchFailedException e) {
            throw new PublishException(e.getMessage(), e);
        }
    }

    @Override
    public String target() {
        return "node/" + patcher.nodeName();
    }
}
