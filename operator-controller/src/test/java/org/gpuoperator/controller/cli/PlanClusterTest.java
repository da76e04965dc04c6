package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.controller.plan.RolloutPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan} against a cluster: reads the active policy, the nodes and the pods, writes nothing.
 */
@EnableKubernetesMockClient(crud = true)
class PlanClusterTest {

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir Path dir;

    @Test
    void thePlanReadsTheActivePolicyNodesAndPodsAndSendsOnlyReads() throws Exception {
        try (InputStream in =
                ClusterPolicy.class.getResourceAsStream(
                        "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
        ClusterPolicy deployed = new ClusterPolicy();
        deployed.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
        ClusterPolicySpec spec = new ClusterPolicySpec();
        DriverSpec driver = new DriverSpec();
        driver.setVersion("570.172.08");
        spec.setDriver(driver);
        deployed.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
        client.resource(deployed).create();
        for (String name : List.of("gpu-a", "gpu-b")) {
            client.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName(name)
                                    .addToLabels(
                                            "feature.node.kubernetes.io/pci-10de.present", "true")
                                    .addToLabels("nvidia.com/gpu.deploy.driver", "true")
                                    .endMetadata()
                                    .build())
                    .create();
        }
        drain();

        PlanCommand.ClusterView view = PlanCommand.read(client);
        assertThat(view.nodes()).hasSize(2);
        assertThat(view.active()).map(s -> s.getDriver().getVersion()).contains("570.172.08");

        Path next = dir.resolve("next.yaml");
        Files.writeString(
                next, org.gpuoperator.controller.plan.PlanFixtures.policy("580.65.06", ""));
        RolloutPlan plan =
                PlanCommand.plan(
                        PolicyFiles.readPolicy(next).spec(),
                        List.of(),
                        view.active(),
                        view,
                        "gpu-operator");
        assertThat(plan.driverUnload()).contains("driver version 570.172.08 -> 580.65.06");
        assertThat(plan.batches()).containsExactly(List.of("gpu-a"), List.of("gpu-b"));
        assertThat(drain()).as("plan sends only reads").allMatch(m -> m.equals("GET"));
        assertThat(
                        Optional.ofNullable(
                                client.resources(ClusterPolicy.class)
                                        .withName("cluster-policy")
                                        .get()))
                .map(p -> p.getSpec().getDriver().getVersion())
                .contains("570.172.08");
    }

    /** The methods of the requests the server received since the last call. */
    private List<String> drain() throws InterruptedException {
        List<String> methods = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            methods.add(r.getMethod());
        }
        return methods;
    }
}
