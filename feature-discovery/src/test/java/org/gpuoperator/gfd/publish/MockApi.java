package org.gpuoperator.gfd.publish;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/** One fabric8 mock API server (CRUD mode, loopback) per test class. */
public final class MockApi implements AutoCloseable {

    /** The mock server logs every request at INFO; kept referenced so the level sticks. */
    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK_LOG.setLevel(Level.WARNING);
    }

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    public MockApi() {
        server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(List.of()),
                        false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
    }

    public KubernetesClient client() {
        return client;
    }

    /** The URL agents in tests connect to. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /**
     * NFD's NodeFeature CRD, as the NFD chart installs it (only what the API server needs to serve
     * it).
     */
    public static CustomResourceDefinition nodeFeatureCrd() {
        return new CustomResourceDefinitionBuilder()
                .withNewMetadata()
                .withName("nodefeatures.nfd.k8s-sigs.io")
                .endMetadata()
                .withNewSpec()
                .withGroup("nfd.k8s-sigs.io")
                .withScope("Namespaced")
                .withNewNames()
                .withKind("NodeFeature")
                .withListKind("NodeFeatureList")
                .withPlural("nodefeatures")
                .withSingular("nodefeature")
                .endNames()
                .addNewVersion()
                .withName("v1alpha1")
                .withServed(true)
                .withStorage(true)
                .withNewSchema()
                .withNewOpenAPIV3Schema()
                .withType("object")
                .withXKubernetesPreserveUnknownFields(true)
                .endOpenAPIV3Schema()
                .endSchema()
                .endVersion()
                .endSpec()
                .build();
    }

    /** Method and path of each request the server took since the last call, in order. */
    public List<String> takeRequests() throws InterruptedException {
        List<String> taken = new ArrayList<>();
        for (RecordedRequest r = server.takeRequest(50, TimeUnit.MILLISECONDS);
                r != null;
                r = server.takeRequest(50, TimeUnit.MILLISECONDS)) {
            taken.add(r.getMethod() + " " + r.getPath());
        }
        return taken;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
