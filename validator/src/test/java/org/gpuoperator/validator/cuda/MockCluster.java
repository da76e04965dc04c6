package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.gpuoperator.node.labels.AgentKubeClient;

/** fabric8's mock API server in CRUD mode, with a node and a stand-in kubelet for one pod. */
public final class MockCluster implements AutoCloseable {

    public static final String NS = "gpu-operator";
    public static final String NODE = "node-a";

    public final KubernetesMockServer server;
    public final KubernetesClient client;

    public MockCluster() {
        server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(List.of()),
                        false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        // the validator's own client: what it reads must not need fabric8's model-class search
        try (KubernetesClient plain = server.createClient()) {
            client = AgentKubeClient.build(plain.getConfiguration());
        }
    }

    public void node(Map<String, String> allocatable) {
        Map<String, Quantity> q = new HashMap<>();
        allocatable.forEach((k, v) -> q.put(k, new Quantity(v)));
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(NODE)
                                .endMetadata()
                                .withNewStatus()
                                .withAllocatable(q)
                                .endStatus()
                                .build())
                .create();
    }

    /**
     * Waits in the background for pod {@code name}, hands it to {@code inspect}, then writes the
     * status {@code finish} makes: what the node's kubelet would do.
     */
    public CompletableFuture<Pod> kubelet(String name, Consumer<Pod> finish) {
        return CompletableFuture.supplyAsync(
                () -> {
                    Awaitility.await()
                            .atMost(Duration.ofSeconds(10))
                            .until(
                                    () ->
                                            client.pods().inNamespace(NS).withName(name).get()
                                                    != null);
                    Pod p = client.pods().inNamespace(NS).withName(name).get();
                    Pod created = client.pods().inNamespace(NS).withName(name).get();
                    finish.accept(p);
                    client.pods().inNamespace(NS).resource(p).updateStatus();
                    return created;
                },
                Executors.newVirtualThreadPerTaskExecutor());
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
