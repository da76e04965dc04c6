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
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;
import org.gpuoperator.e2e.apiserver.ApiFront;
import org.gpuoperator.e2e.apiserver.PodLogSource;
import org.gpuoperator.e2e.apiserver.TlsMaterial;

/**
 * The simulated cluster's API server: fabric8's mock server in CRUD mode (real HTTP, real watches),
 * with our CRDs registered so that status subresources behave as on a real API server, behind
 * {@link ApiFront}, which adds what kubectl needs (discovery, Tables, HTTP watches, logs) and
 * optionally TLS. Agents in other processes and kubectl reach it through the kubeconfig file this
 * writes; {@link #client()} talks to the mock directly.
 */
public final class ApiServer implements AutoCloseable {

    /** Any bearer token is accepted; this one is written to the kubeconfig and handed to pods. */
    public static final String TOKEN = "simulated";

    /**
     * How clients reach the server.
     *
     * @param bindAddress where the front listens: 127.0.0.1, or 0.0.0.0 so that pods in network
     *     namespaces reach it through their bridge gateway
     * @param https TLS with a certificate generated for 127.0.0.1, localhost and {@code extraIps}
     * @param extraIps more IP SANs (the pod-network gateways, e.g. 10.88.1.1); only with https
     */
    public record Options(String bindAddress, boolean https, List<String> extraIps) {
        public Options {
            extraIps = List.copyOf(extraIps);
            if (!https && !extraIps.isEmpty()) {
                throw new IllegalArgumentException("extra certificate IPs need https");
            }
        }

        /** Plain HTTP on loopback, for processes on this machine. */
        public static Options loopback() {
            return new Options("127.0.0.1", false, List.of());
        }

        public static Options https(String bindAddress, List<String> extraIps) {
            return new Options(bindAddress, true, extraIps);
        }
    }

    /** The mock server logs every request at INFO; kept referenced so the level sticks. */
    private static final java.util.logging.Logger MOCK_LOG = quiet("io.fabric8.mockwebserver");

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final ApiFront front;
    private final TlsMaterial tls;
    private final Path kubeconfig;

    private ApiServer(
            KubernetesMockServer server,
            KubernetesClient client,
            ApiFront front,
            TlsMaterial tls,
            Path kubeconfig) {
        this.server = server;
        this.client = client;
        this.front = front;
        this.tls = tls;
        this.kubeconfig = kubeconfig;
    }

    /**
     * Starts on a free loopback port and loads every CRD file in {@code crdDir}.
     *
     * @param workDir where the kubeconfig for agent processes is written; its context's namespace
     *     is {@code default}, as kind's
     * @param namespace the operator's namespace, created with the ones every cluster has
     */
    public static ApiServer start(Path crdDir, Path workDir, String namespace) throws IOException {
        return start(crdDir, workDir, namespace, Options.loopback());
    }

    /** As {@link #start(Path, Path, String)}, reachable as {@code options} says. */
    public static ApiServer start(Path crdDir, Path workDir, String namespace, Options options)
            throws IOException {
        KubernetesMockServer server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(List.of()),
                        false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        KubernetesClient client = server.createClient();
        try (Stream<Path> files = Files.list(crdDir)) {
            for (Path f :
                    files.filter(
                                    p ->
                                            p.toString().endsWith(".yml")
                                                    || p.toString().endsWith(".yaml"))
                            .sorted()
                            .toList()) {
                try (InputStream in = Files.newInputStream(f)) {
                    CustomResourceDefinition crd =
                            client.apiextensions().v1().customResourceDefinitions().load(in).item();
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        }
        // the namespaces every cluster starts with (kind's), and the operator's
        for (String ns :
                new java.util.LinkedHashSet<>(
                        List.of(
                                "default",
                                "kube-system",
                                "kube-public",
                                "kube-node-lease",
                                namespace))) {
            client.namespaces()
                    .resource(
                            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                                    .withNewMetadata()
                                    .withName(ns)
                                    .addToLabels("kubernetes.io/metadata.name", ns)
                                    .endMetadata()
                                    .withNewStatus()
                                    .withPhase("Active")
                                    .endStatus()
                                    .build())
                    .create();
        }
        TlsMaterial tls =
                options.https()
                        ? TlsMaterial.generate(workDir.resolve("apiserver-tls"), options.extraIps())
                        : null;
        ApiFront front =
                ApiFront.start(
                        "http://127.0.0.1:" + server.getPort(),
                        options.bindAddress(),
                        0,
                        tls,
                        PodLogSource.NONE);
        Path kubeconfig = workDir.resolve("kubeconfig");
        String url = (tls != null ? "https" : "http") + "://127.0.0.1:" + front.port();
        String caLine =
                tls == null
                        ? ""
                        : "\n      certificate-authority-data: "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                tls.certificatePem()
                                                        .getBytes(
                                                                java.nio.charset.StandardCharsets
                                                                        .US_ASCII));
        Files.writeString(
                kubeconfig,
                """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: simulated
                    cluster:
                      server: %s%s
                contexts:
                  - name: simulated
                    context:
                      cluster: simulated
                      user: simulated
                      namespace: default
                current-context: simulated
                users:
                  - name: simulated
                    user:
                      token: %s
                """
                        .formatted(url, caLine, TOKEN));
        return new ApiServer(server, client, front, tls, kubeconfig);
    }

    private static java.util.logging.Logger quiet(String name) {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
        l.setLevel(java.util.logging.Level.WARNING);
        return l;
    }

    public KubernetesClient client() {
        return client;
    }

    /**
     * A kubeconfig that points at this server, for processes (the agents) and for admins with
     * kubectl-like tools.
     */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** The front's URL on loopback ({@code https://} when started with TLS). */
    public String url() {
        return (tls != null ? "https" : "http") + "://127.0.0.1:" + front.port();
    }

    /** The port the front listens on, on every address it is bound to. */
    public int port() {
        return front.port();
    }

    /** The PEM certificate clients trust (a pod's {@code ca.crt}); only with https. */
    public String caCertificatePem() {
        if (tls == null) {
            throw new IllegalStateException("the API server was started without https");
        }
        return tls.certificatePem();
    }

    /** A bearer token clients may send (the mock accepts any). */
    public String serviceAccountToken() {
        return TOKEN;
    }

    /**
     * Where {@code kubectl logs} reads container output from now on (the simulated nodes'
     * kubelets).
     */
    public void podLogSource(PodLogSource source) {
        front.podLogSource(source);
    }

    /** Where {@code kubectl exec} runs commands (the nodes' pod runners). */
    public void podExec(org.gpuoperator.e2e.apiserver.PodExec exec) {
        front.podExec(exec);
    }

    /** The distinct calls to resources so far, each with its caller (by bearer token). */
    public java.util.Set<org.gpuoperator.e2e.apiserver.ApiCall> calls() {
        return front.calls();
    }

    /** Requests the server has answered so far (reads and writes), for benchmarks. */
    public int requestCount() {
        return server.getRequestCount();
    }

    @Override
    public void close() {
        front.close();
        client.close();
        try {
            server.destroy();
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the mock's shutdown can race its own event loop's ("event executor terminated", seen
            // once in ApiServerEvictionTest's teardown); the server is stopped either way
        }
    }
}
