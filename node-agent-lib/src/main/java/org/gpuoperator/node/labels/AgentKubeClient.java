package org.gpuoperator.node.labels;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The Kubernetes client of a node agent that watches its own Node ({@link OwnNodeInformer}). A
 * watch event's object is read by its {@code kind}, and fabric8's default serialization finds the
 * class for a kind by loading and instantiating every model class its jars list (~620 in
 * mig-manager) the first time one is read. An agent's watches bring a Node, or a Status when the
 * API server ends a watch (410 Gone: the informer lists again): those two are registered, and
 * nothing is searched. A kind not registered is read as a generic resource, which fabric8's watch
 * converts to the watched type.
 */
public final class AgentKubeClient {

    private AgentKubeClient() {}

    /** The serialization: Node and Status registered, no class-path search. */
    public static KubernetesSerialization serialization() {
        KubernetesSerialization s = new KubernetesSerialization(new ObjectMapper(), false);
        s.registerKubernetesResource(Node.class);
        s.registerKubernetesResource(Status.class);
        return s;
    }

    /** A client from the usual configuration (in-cluster, kubeconfig) with that serialization. */
    public static KubernetesClient build() {
        return new KubernetesClientBuilder().withKubernetesSerialization(serialization()).build();
    }

    /** A client of {@code config} with that serialization. */
    public static KubernetesClient build(Config config) {
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(serialization())
                .build();
    }
}
