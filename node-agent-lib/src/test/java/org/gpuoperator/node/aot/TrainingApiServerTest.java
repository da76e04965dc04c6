package org.gpuoperator.node.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Utils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.node.labels.OwnNodeInformer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-in API server of the AOT training runs, through the Kubernetes client the agents use:
 * TLS verified against the kubeconfig's CA, the Node read, patched, listed and watched (over HTTP),
 * the node's pods listed (none), anything else 404; and reached as a pod reaches its API server,
 * with the environment and service-account files it writes.
 */
class TrainingApiServerTest {

    @TempDir static Path dir;
    static Path keystore;

    /** A key as images/aot-training.sh makes it: the runtime's keytool. */
    @BeforeAll
    static void key() throws Exception {
        keystore = dir.resolve("api.p12");
        Process keytool =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "keytool")
                                        .toString(),
                                "-genkeypair",
                                "-keystore",
                                keystore.toString(),
                                "-storetype",
                                "PKCS12",
                                "-storepass",
                                "training",
                                "-keypass",
                                "training",
                                "-alias",
                                "api",
                                "-keyalg",
                                "EC",
                                "-groupname",
                                "secp256r1",
                                "-dname",
                                "CN=aot-training",
                                "-ext",
                                "san=ip:127.0.0.1",
                                "-validity",
                                "2")
                        .redirectErrorStream(true)
                        .start();
        keytool.getInputStream().readAllBytes();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();
    }

    private static TrainingApiServer start(String node, Path kubeconfig) throws Exception {
        return TrainingApiServer.start(keystore, "training".toCharArray(), node, kubeconfig);
    }

    /** A client configured by the kubeconfig the server wrote. */
    private static KubernetesClient clientOf(Path kubeconfig) throws Exception {
        return new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                .build();
    }

    @Test
    void theClientReadsPatchesAndListsItsNodeOverVerifiedTls() throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        try (TrainingApiServer api = start("aot-training", kubeconfig);
                KubernetesClient client = clientOf(kubeconfig)) {
            assertThat(client.getConfiguration().isTrustCerts()).isFalse();
            assertThat(client.getMasterUrl().getPort()).isEqualTo(api.port());

            Node node = client.nodes().withName("aot-training").get();
            assertThat(node.getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.present", "true");
            assertThat(node.getStatus().getAllocatable().get("nvidia.com/gpu").getAmount())
                    .isEqualTo("8");

            Path marker = dir.resolve(TrainingApiServer.PATCHED_MARKER);
            assertThat(marker).as("nothing patched yet").doesNotExist();
            Node patched =
                    client.nodes()
                            .withName("aot-training")
                            .edit(
                                    n -> {
                                        n.getMetadata().getLabels().put("example", "x");
                                        return n;
                                    });
            assertThat(Long.parseLong(patched.getMetadata().getResourceVersion()))
                    .isGreaterThan(Long.parseLong(node.getMetadata().getResourceVersion()));
            assertThat(marker).as("the training run waits for this").exists();

            List<Node> listed =
                    client.nodes().withField("metadata.name", "aot-training").list().getItems();
            assertThat(listed)
                    .extracting(n -> n.getMetadata().getName())
                    .containsExactly("aot-training");

            assertThat(client.nodes().withName("other").get()).isNull();
            assertThatThrownBy(
                            () ->
                                    client.configMaps()
                                            .inNamespace("aot-training")
                                            .resource(
                                                    new io.fabric8.kubernetes.api.model
                                                                    .ConfigMapBuilder()
                                                            .withNewMetadata()
                                                            .withName("c")
                                                            .endMetadata()
                                                            .build())
                                            .create())
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("404");
        }
    }

    @Test
    void aPostedObjectsNameIsItsMetadatasOwnNotALabelsOrAnAnnotations() {
        assertThat(
                        TrainingApiServer.metadataName(
                                "{\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"a\":\"x\\\"}\\\"\"},"
                                        + "\"labels\":{\"name\":\"label\"},\"name\" : \"pod-1\"},"
                                        + "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"))
                .isEqualTo("pod-1");
        assertThat(TrainingApiServer.metadataName("{\"metadata\":{\"generateName\":\"p-\"}}"))
                .isNull();
        assertThat(TrainingApiServer.metadataName("{\"spec\":{\"name\":\"x\"}}")).isNull();
    }

    /** The validator's workload pod: created, read back finished, its events, deleted. */
    @Test
    void aPodCreatedInANamespaceHasSucceededWhenReadBackUntilDeleted() throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        try (TrainingApiServer api = start("aot-training", kubeconfig);
                KubernetesClient client = clientOf(kubeconfig)) {
            var pods = client.pods().inNamespace("gpu-operator");
            assertThat(pods.withName("nvidia-cuda-validator-aot-training").get()).isNull();
            Pod created =
                    pods.resource(
                                    new PodBuilder()
                                            .withNewMetadata()
                                            .withName("nvidia-cuda-validator-aot-training")
                                            .addToLabels("name", "not-the-pods-name")
                                            .addToAnnotations("note", "a \\\"quoted\\\" {name}")
                                            .endMetadata()
                                            .withNewSpec()
                                            .withNodeName("aot-training")
                                            .addNewContainer()
                                            .withName("workload")
                                            .withImage("aot-training")
                                            .endContainer()
                                            .endSpec()
                                            .build())
                            .create();
            assertThat(created.getStatus().getPhase()).isEqualTo("Pending");

            Pod read = pods.withName("nvidia-cuda-validator-aot-training").get();
            assertThat(read.getSpec().getNodeName()).isEqualTo("aot-training");
            assertThat(read.getStatus().getPhase()).isEqualTo("Succeeded");
            assertThat(read.getStatus().getContainerStatuses())
                    .singleElement()
                    .satisfies(
                            c -> assertThat(c.getState().getTerminated().getExitCode()).isZero());
            assertThat(
                            client.pods()
                                    .inNamespace("other")
                                    .withName("nvidia-cuda-validator-aot-training")
                                    .get())
                    .as("kept by namespace and name")
                    .isNull();
            assertThatThrownBy(() -> pods.resource(created).create())
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("409");
            assertThat(client.v1().events().inNamespace("gpu-operator").list().getItems())
                    .isEmpty();

            assertThat(
                            pods.withName("nvidia-cuda-validator-aot-training")
                                    .withGracePeriod(0)
                                    .delete())
                    .hasSize(1);
            assertThat(pods.withName("nvidia-cuda-validator-aot-training").get()).isNull();
        }
    }

    /** mig-manager's informer on its own Node, and its list of the node's pods. */
    @Test
    void anInformerOnItsNodeSyncsAndKeepsWatchingOverHttp() throws Exception {
        Path kubeconfig = dir.resolve("watch/kubeconfig");
        Files.createDirectories(kubeconfig.getParent());
        List<ObjectMeta> seen = new CopyOnWriteArrayList<>();
        try (TrainingApiServer api = start("aot-training", kubeconfig);
                KubernetesClient client = clientOf(kubeconfig);
                SharedIndexInformer<GenericKubernetesResource> informer =
                        OwnNodeInformer.inform(client, "aot-training", seen::add)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(informer.hasSynced() && informer.isWatching())
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(informer.hasSynced()).as("listed").isTrue();
            assertThat(informer.isWatching())
                    .as("its watch open: the WebSocket refused, then over HTTP")
                    .isTrue();
            assertThat(seen)
                    .extracting(n -> n.getLabels().get("nvidia.com/mig.config"))
                    .containsExactly("all-disabled");
            assertThat(
                            client.pods()
                                    .inAnyNamespace()
                                    .withField("spec.nodeName", "aot-training")
                                    .list()
                                    .getItems())
                    .isEmpty();
            assertThat(informer.isRunning()).as("the open watch did not stop it").isTrue();
        }
    }

    @Test
    void aClientOnAPodsPathReachesItWithTheServiceAccountAndNoKubeconfig() throws Exception {
        Path kubeconfig = dir.resolve("pod/kubeconfig");
        Files.createDirectories(kubeconfig.getParent());
        try (TrainingApiServer api = start("aot-training", kubeconfig)) {
            Map<String, String> env = new LinkedHashMap<>();
            for (String line : Files.readAllLines(kubeconfig.resolveSibling("pod.env"))) {
                env.put(
                        line.substring(0, line.indexOf('=')),
                        line.substring(line.indexOf('=') + 1));
            }
            // fabric8 reads each of these as a system property first, then as the variable
            Map<String, String> properties =
                    Map.of(
                            "KUBERNETES_SERVICE_HOST",
                            Config.KUBERNETES_SERVICE_HOST_PROPERTY,
                            "KUBERNETES_SERVICE_PORT",
                            Config.KUBERNETES_SERVICE_PORT_PROPERTY,
                            Utils.convertSystemPropertyNameToEnvVar(
                                    Config.KUBERNETES_CA_CERTIFICATE_FILE_SYSTEM_PROPERTY),
                            Config.KUBERNETES_CA_CERTIFICATE_FILE_SYSTEM_PROPERTY,
                            Utils.convertSystemPropertyNameToEnvVar(
                                    Config
                                            .KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN_FILE_SYSTEM_PROPERTY),
                            Config.KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN_FILE_SYSTEM_PROPERTY,
                            "KUBECONFIG",
                            Config.KUBERNETES_KUBECONFIG_FILE);
            assertThat(env.keySet())
                    .as("only names fabric8 reads")
                    .containsExactlyInAnyOrderElementsOf(properties.keySet());
            assertThat(env)
                    .containsEntry("KUBERNETES_SERVICE_HOST", "127.0.0.1")
                    .containsEntry("KUBERNETES_SERVICE_PORT", String.valueOf(api.port()));
            assertThat(Path.of(env.get("KUBECONFIG"))).doesNotExist();
            assertThat(Path.of(env.get("KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN")))
                    .hasContent("training")
                    .hasParent(kubeconfig.resolveSibling("serviceaccount"));
            Map<String, String> saved = new LinkedHashMap<>();
            properties.forEach(
                    (name, property) -> saved.put(property, System.getProperty(property)));
            try {
                properties.forEach((name, property) -> System.setProperty(property, env.get(name)));
                try (KubernetesClient client = new KubernetesClientBuilder().build()) {
                    assertThat(client.getConfiguration().getAutoOAuthToken()).isEqualTo("training");
                    assertThat(client.getConfiguration().isTrustCerts()).isFalse();
                    assertThat(client.getMasterUrl().getPort()).isEqualTo(api.port());
                    assertThat(
                                    client.nodes()
                                            .withName("aot-training")
                                            .get()
                                            .getMetadata()
                                            .getLabels())
                            .containsEntry("nvidia.com/gpu.present", "true");
                }
            } finally {
                saved.forEach(
                        (property, value) -> {
                            if (value == null) {
                                System.clearProperty(property);
                            } else {
                                System.setProperty(property, value);
                            }
                        });
            }
        }
    }

    @Test
    void theKubeconfigIsWrittenWhole() throws Exception {
        Path kubeconfig = dir.resolve("whole/kubeconfig");
        Files.createDirectories(kubeconfig.getParent());
        try (TrainingApiServer api = start("n1", kubeconfig)) {
            assertThat(Files.list(kubeconfig.getParent()).map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("kubeconfig", "pod.env", "serviceaccount");
            assertThat(
                            Files.list(kubeconfig.resolveSibling("serviceaccount"))
                                    .map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("token", "ca.crt", "namespace");
            assertThat(Files.readString(kubeconfig))
                    .contains("server: \"https://127.0.0.1:" + api.port() + "\"")
                    .contains("certificate-authority-data: ");
            assertThat(api.answer("GET", java.net.URI.create("/api/v1/nodes/n1")).code())
                    .isEqualTo(200);
            assertThat(
                            api.answer(
                                    "GET",
                                    java.net.URI.create(
                                            "/api/v1/nodes?fieldSelector=metadata.name%3Dn1&watch=true")))
                    .isSameAs(TrainingApiServer.WATCH);
            assertThat(
                            api.answer(
                                            "GET",
                                            java.net.URI.create(
                                                    "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&watch=true"))
                                    .code())
                    .as("no other watches: the agents retry them as in a cluster")
                    .isEqualTo(404);
        }
    }
}
