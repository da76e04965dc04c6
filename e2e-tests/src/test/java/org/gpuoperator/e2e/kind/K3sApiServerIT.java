package org.gpuoperator.e2e.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The controller against a real API server (K3s in a container) instead of the mock server: our
 * CRDs must be accepted by a real apiserver's schema validation, and the controller's writes
 * (DaemonSets, node labels, status subresource) must pass a real server's checks. Skipped where
 * there is no Docker engine.
 */
@Testcontainers(disabledWithoutDocker = true)
class K3sApiServerIT {

    private static final Duration CONVERGE = Duration.ofMinutes(2);
    private static final List<String> DAEMONSETS =
            List.of(
                    "nvidia-driver-daemonset",
                    "nvidia-container-toolkit-daemonset",
                    "nvidia-device-plugin-daemonset",
                    "gpu-feature-discovery",
                    "nvidia-dcgm-exporter");

    @Container
    static final K3sContainer K3S =
            new K3sContainer(DockerImageName.parse("rancher/k3s:v1.33.1-k3s1"));

    @Test
    void controllerDeploysTheOperandsAndLabelsASimulatedNodeOnARealApiServer() throws Exception {
        Path deploy = Path.of("..", "deploy").toAbsolutePath().normalize();
        try (KubernetesClient client =
                new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(K3S.getKubeConfigYaml()))
                        .build()) {
            try (Stream<Path> crds = Files.list(deploy.resolve("crds"))) {
                for (Path file :
                        crds.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                    try (InputStream in = Files.newInputStream(file)) {
                        CustomResourceDefinition crd =
                                client.apiextensions()
                                        .v1()
                                        .customResourceDefinitions()
                                        .load(in)
                                        .item();
                        client.resource(crd).create();
                        client.apiextensions()
                                .v1()
                                .customResourceDefinitions()
                                .withName(crd.getMetadata().getName())
                                .waitUntilCondition(
                                        c ->
                                                c.getStatus() != null
                                                        && c.getStatus().getConditions() != null
                                                        && c.getStatus().getConditions().stream()
                                                                .anyMatch(
                                                                        cond ->
                                                                                "Established"
                                                                                                .equals(
                                                                                                        cond
                                                                                                                .getType())
                                                                                        && "True"
                                                                                                .equals(
                                                                                                        cond
                                                                                                                .getStatus())),
                                        1,
                                        java.util.concurrent.TimeUnit.MINUTES);
                    }
                }
            }
            client.resource(
                            new NamespaceBuilder()
                                    .withNewMetadata()
                                    .withName(SimulatedCluster.NAMESPACE)
                                    .endMetadata()
                                    .build())
                    .create();
            await().atMost(CONVERGE).until(() -> !client.nodes().list().getItems().isEmpty());
            String node = client.nodes().list().getItems().getFirst().getMetadata().getName();
            client.nodes()
                    .withName(node)
                    .edit(
                            n -> {
                                n.getMetadata()
                                        .getLabels()
                                        .put(SimulatedCluster.SIMULATED_LABEL, "true");
                                return n;
                            });

            try (AutoCloseable controller = ControllerLauncher.start(client)) {
                GenericKubernetesResource policy =
                        Serialization.unmarshal(
                                Files.readString(
                                        deploy.resolve("samples/clusterpolicy-simulated.yaml")),
                                GenericKubernetesResource.class);
                client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                        .resource(policy)
                        .create();

                await().atMost(CONVERGE)
                        .pollInterval(Duration.ofSeconds(1))
                        .untilAsserted(
                                () -> {
                                    assertThat(
                                                    client.apps()
                                                            .daemonSets()
                                                            .inNamespace(SimulatedCluster.NAMESPACE)
                                                            .list()
                                                            .getItems())
                                            .extracting(d -> d.getMetadata().getName())
                                            .containsAll(DAEMONSETS);
                                    Node n = client.nodes().withName(node).get();
                                    assertThat(n.getMetadata().getLabels())
                                            .containsEntry("nvidia.com/gpu.present", "true")
                                            .containsEntry("nvidia.com/gpu.deploy.driver", "true");
                                    GenericKubernetesResource cp =
                                            client.genericKubernetesResources(
                                                            SimulatedCluster.CLUSTER_POLICIES)
                                                    .withName(policy.getMetadata().getName())
                                                    .get();
                                    assertThat(operandNames(cp)).contains("driver");
                                });
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> operandNames(GenericKubernetesResource cp) {
        Object status = cp.getAdditionalProperties().get("status");
        if (!(status instanceof Map<?, ?> s) || !(s.get("operands") instanceof List<?> operands)) {
            return List.of();
        }
        return operands.stream().map(o -> ((Map<String, Object>) o).get("name")).toList();
    }
}
