package org.gpuoperator.node.labels;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/**
 * An informer on the agent's own Node ({@code metadata.name}), for agents that act on its labels:
 * each add and update is one observation; a delete is none (the agent's pod goes with its node).
 * RBAC: {@code nodes} get, list, watch.
 */
public final class OwnNodeInformer {

    private OwnNodeInformer() {}

    /** Starts the informer (no resync); close it to stop. */
    public static SharedIndexInformer<Node> inform(
            KubernetesClient client, String nodeName, Consumer<Node> onNode) {
        return client.nodes()
                .withName(nodeName)
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(Node node) {
                                onNode.accept(node);
                            }

                            @Override
                            public void onUpdate(Node before, Node node) {
                                onNode.accept(node);
                            }

                            @Override
                            public void onDelete(Node node, boolean unknown) {}
                        },
                        0);
    }
}
