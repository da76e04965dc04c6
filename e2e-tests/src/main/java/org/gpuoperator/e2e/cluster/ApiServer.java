package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;

/**
 * The simulated cluster's API server: fabric8's mock server in CRUD mode (real HTTP, real watches), with our CRDs
 * registered so that status subresources behave as on a real API server. Agents in other processes reach it through
 * the kubeconfig file this writes.
 */
public final class ApiServer implements AutoCloseable {

    /** The mock server logs every request at INFO; kept referenced so the level sticks. */
    private static final java.util.logging.Logger MOCK_LOG = quiet("io.fabric8.mockwebserver");

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final Path kubeconfig;

    private ApiServer(KubernetesMockServer server, KubernetesClient client, Path kubeconfig) {
        this.server = server;
        this.client = client;
        this.kubeconfig = kubeconfig;
    }

    /**
     * Starts on a free loopback port and loads every CRD file in {@code crdDir}.
     *
     * @param workDir where the kubeconfig for agent processes is written
     */
    public static ApiServer start(Path crdDir, Path workDir, String namespace) throws IOException {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        KubernetesClient client = server.createClient();
        try (Stream<Path> files = Files.list(crdDir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions().load(in).item();
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        }
        client.namespaces().resource(new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata().withName(namespace).endMetadata().build()).create();
        Path kubeconfig = workDir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: simulated
                    cluster:
                      server: http://127.0.0.1:%d
                contexts:
                  - name: simulated
                    context:
                      cluster: simulated
                      user: simulated
                      namespace: %s
                current-context: simulated
                users:
                  - name: simulated
                    user:
                      token: simulated
                """.formatted(server.getPort(), namespace));
        return new ApiServer(server, client, kubeconfig);
    }

    private static java.util.logging.Logger quiet(String name) {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
        l.setLevel(java.util.logging.Level.WARNING);
        return l;
    }

    public KubernetesClient client() {
        return client;
    }

    /** A kubeconfig that points at this server, for processes (the agents) and for admins with kubectl-like tools. */
    public Path kubeconfig() {
        return kubeconfig;
    }

    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** Requests the server has answered so far (reads and writes), for benchmarks. */
    public int requestCount() {
        return server.getRequestCount();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
