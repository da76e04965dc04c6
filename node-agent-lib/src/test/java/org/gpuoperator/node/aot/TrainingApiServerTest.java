package org.gpuoperator.node.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-in API server of the AOT training runs, through the Kubernetes client the agents use:
 * TLS verified against the kubeconfig's CA, the Node read, patched and listed, anything else 404.
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

    @Test
    void theClientReadsPatchesAndListsItsNodeOverVerifiedTls() throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        try (TrainingApiServer api =
                        TrainingApiServer.start(
                                keystore, "training".toCharArray(), "aot-training", kubeconfig);
                KubernetesClient client =
                        new KubernetesClientBuilder()
                                .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                                .build()) {
            assertThat(client.getConfiguration().isTrustCerts()).isFalse();
            assertThat(client.getMasterUrl().getPort()).isEqualTo(api.port());

            Node node = client.nodes().withName("aot-training").get();
            assertThat(node.getMetadata().getLabels())
                    .containsEntry("nvidia.com/gpu.present", "true");
            assertThat(node.getStatus().getAllocatable().get("nvidia.com/gpu").getAmount())
                    .isEqualTo("8");

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

            List<Node> listed =
                    client.nodes().withField("metadata.name", "aot-training").list().getItems();
            assertThat(listed)
                    .extracting(n -> n.getMetadata().getName())
                    .containsExactly("aot-training");

            assertThat(client.nodes().withName("other").get()).isNull();
            assertThatThrownBy(
                            () ->
                                    client.pods()
                                            .inNamespace("aot-training")
                                            .resource(
                                                    new io.fabric8.kubernetes.api.model.PodBuilder()
                                                            .withNewMetadata()
                                                            .withName("p")
                                                            .endMetadata()
                                                            .build())
                                            .create())
                    .isInstanceOf(KubernetesClientException.class)
                    .hasMessageContaining("404");
        }
    }

    @Test
    void theKubeconfigIsWrittenWhole() throws Exception {
        Path kubeconfig = dir.resolve("whole/kubeconfig");
        Files.createDirectories(kubeconfig.getParent());
        try (TrainingApiServer api =
                TrainingApiServer.start(keystore, "training".toCharArray(), "n1", kubeconfig)) {
            assertThat(Files.list(kubeconfig.getParent()).map(p -> p.getFileName().toString()))
                    .containsExactly("kubeconfig");
            assertThat(Files.readString(kubeconfig))
                    .contains("server: \"https://127.0.0.1:" + api.port() + "\"")
                    .contains("certificate-authority-data: ");
            assertThat(api.answer("GET", java.net.URI.create("/api/v1/nodes/n1")).code())
                    .isEqualTo(200);
            assertThat(
                            api.answer(
                                            "GET",
                                            java.net.URI.create(
                                                    "/api/v1/nodes?fieldSelector=metadata.name%3Dn1&watch=true"))
                                    .code())
                    .as("no watches: the agents retry them as in a cluster")
                    .isEqualTo(404);
        }
    }
}
