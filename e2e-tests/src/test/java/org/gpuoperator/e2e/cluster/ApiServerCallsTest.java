package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.apiserver.ServiceAccountTokens;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated API server knows each request's caller by its bearer token and records it. */
class ApiServerCallsTest {

    @TempDir Path work;

    @Test
    void recordsEachCallWithTheServiceAccountItsTokenNames() throws Exception {
        try (ApiServer api =
                ApiServer.start(RepoRoot.find().resolve("deploy/crds"), work, "gpu-operator")) {
            api.client()
                    .nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName("n1")
                                    .endMetadata()
                                    .build())
                    .create();
            Config config =
                    new ConfigBuilder()
                            .withMasterUrl(api.url())
                            .withOauthToken(ServiceAccountTokens.mint("gpu-operator", "agent"))
                            .build();
            try (KubernetesClient agent =
                    new KubernetesClientBuilder().withConfig(config).build()) {
                agent.nodes().withName("n1").get();
                agent.pods().inNamespace("gpu-operator").list();
            }
            String user = "system:serviceaccount:gpu-operator:agent";
            assertThat(api.calls())
                    .contains(
                            new ApiCall(user, "get", "", "nodes", null, null, "n1"),
                            new ApiCall(user, "list", "", "pods", null, "gpu-operator", null))
                    .filteredOn(c -> c.user().equals(user))
                    .hasSize(2);
        }
    }
}
