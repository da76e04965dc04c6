package org.gpuoperator.node.labels;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;

/**
 * An informer on the agent's own Node ({@code metadata.name}), for agents that act on its labels:
 * each add and update is one observation of the node's metadata; a delete is none (the agent's pod
 * goes with its node). The node is watched as a generic resource ({@link AgentKubeClient#NODES}):
 * every agent reads only its labels and annotations, and Jackson then never builds its reader of
 * fabric8's whole Node model (status, images, conditions). RBAC: {@code nodes} get, list, watch.
 */
public final class OwnNodeInformer {

    private OwnNodeInformer() {}

    /** Starts the informer (no resync); close it to stop. */
    public static SharedIndexInformer<GenericKubernetesResource> inform(
            KubernetesClient client, String nodeName, Consumer<ObjectMeta> onNode) {
        return AgentKubeClient.node(client, nodeName)
                .inform(
                        new ResourceEventHandler<>() {
                            @Override
                            public void onAdd(GenericKubernetesResource node) {
                                onNode.accept(node.getMetadata());
                            }

                            @Override
                            public void onUpdate(
                                    GenericKubernetesResource before,
                                    GenericKubernetesResource node) {
                                onNode.accept(node.getMetadata());
                            }

                            @Override
                            public void onDelete(GenericKubernetesResource node, boolean unknown) {}
                        },
                        0);
    }

    /**
     * The node's metadata now, read as a generic resource.
     *
     * @return null when there is no such node
     */
    public static ObjectMeta read(KubernetesClient client, String nodeName) {
        GenericKubernetesResource node = AgentKubeClient.node(client, nodeName).get();
        return node == null ? null : node.getMetadata();
    }
}
