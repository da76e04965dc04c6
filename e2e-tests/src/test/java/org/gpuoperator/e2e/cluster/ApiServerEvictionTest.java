package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.apiserver.ServiceAccountTokens;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Eviction API through the simulated API server, with fabric8's {@code evict()} as the operator
 * calls it: PodDisruptionBudgets are honoured, a refusal is kube-apiserver's 429.
 */
class ApiServerEvictionTest {

    private static final String NS = "workloads";

    @TempDir Path work;

    private ApiServer api;
    private KubernetesClient client;

    @BeforeEach
    void start() throws Exception {
        api = ApiServer.start(RepoRoot.find().resolve("deploy/crds"), work, NS);
        Config config =
                new ConfigBuilder()
                        .withMasterUrl(api.url())
                        .withOauthToken(ServiceAccountTokens.mint("gpu-operator", "operator"))
                        // fabric8 retries a 429 ten times, about 100 s, before evict() answers
                        // false
                        .withRequestRetryBackoffLimit(0)
                        .build();
        client = new KubernetesClientBuilder().withConfig(config).build();
    }

    @AfterEach
    void stop() {
        client.close();
        api.close();
    }

    private void readyPod(String name, String app) {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .withLabels(Map.of("app", app))
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("c")
                        .withImage("busybox")
                        .endContainer()
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Running")
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build();
        api.client().pods().inNamespace(NS).resource(pod).create();
    }

    private void minAvailableOne(String name, String app) {
        api.client()
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(NS)
                .resource(
                        new PodDisruptionBudgetBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .withNamespace(NS)
                                .endMetadata()
                                .withNewSpec()
                                .withMinAvailable(new IntOrString(1))
                                .withNewSelector()
                                .withMatchLabels(Map.of("app", app))
                                .endSelector()
                                .endSpec()
                                .build())
                .create();
    }

    private boolean exists(String name) {
        return api.client().pods().inNamespace(NS).withName(name).get() != null;
    }

    @Test
    void aPodNoBudgetCoversIsEvictedAndGone() {
        readyPod("free", "web");

        assertThat(client.pods().inNamespace(NS).withName("free").evict()).isTrue();

        assertThat(exists("free")).isFalse();
        assertThat(api.client().pods().inNamespace(NS).list().getItems()).isEmpty();
    }

    @Test
    void theOnlyReadyPodOfAMinAvailableOneBudgetStays() {
        readyPod("solo", "gpu-job");
        minAvailableOne("gpu-job-pdb", "gpu-job");

        assertThat(client.pods().inNamespace(NS).withName("solo").evict()).isFalse();

        assertThat(exists("solo")).isTrue();
    }

    @Test
    void ofTwoReadyPodsUnderMinAvailableOneTheFirstGoesAndTheSecondStays() {
        readyPod("a", "gpu-job");
        readyPod("b", "gpu-job");
        minAvailableOne("gpu-job-pdb", "gpu-job");

        assertThat(client.pods().inNamespace(NS).withName("a").evict()).isTrue();
        assertThat(client.pods().inNamespace(NS).withName("b").evict()).isFalse();

        assertThat(exists("a")).isFalse();
        assertThat(exists("b")).isTrue();
        PodDisruptionBudgetStatus status =
                api.client()
                        .policy()
                        .v1()
                        .podDisruptionBudget()
                        .inNamespace(NS)
                        .withName("gpu-job-pdb")
                        .get()
                        .getStatus();
        assertThat(status.getExpectedPods()).isEqualTo(1);
        assertThat(status.getCurrentHealthy()).isEqualTo(1);
        assertThat(status.getDesiredHealthy()).isEqualTo(1);
        assertThat(status.getDisruptionsAllowed()).isZero();
    }

    @Test
    void aRefusalIsKubeApiserversTooManyRequestsStatus() throws Exception {
        readyPod("solo", "gpu-job");
        minAvailableOne("gpu-job-pdb", "gpu-job");

        HttpResponse<String> r =
                post(
                        "/api/v1/namespaces/" + NS + "/pods/solo/eviction",
                        """
                        {"apiVersion":"policy/v1","kind":"Eviction",
                         "metadata":{"name":"solo","namespace":"workloads"}}
                        """);

        assertThat(r.statusCode()).isEqualTo(429);
        Map<String, Object> status = new ObjectMapper().readValue(r.body(), Map.class);
        assertThat(status)
                .containsEntry("kind", "Status")
                .containsEntry("status", "Failure")
                .containsEntry("reason", "TooManyRequests")
                .containsEntry("code", 429)
                .containsEntry(
                        "message",
                        "Cannot evict pod as it would violate the pod's disruption budget.");
        assertThat(status.get("details"))
                .isEqualTo(
                        Map.of(
                                "causes",
                                List.of(
                                        Map.of(
                                                "reason",
                                                "DisruptionBudget",
                                                "message",
                                                "The disruption budget gpu-job-pdb needs 1"
                                                        + " healthy pods and has 1 currently"))));
        assertThat(exists("solo")).isTrue();
    }

    @Test
    void anAcceptedEvictionAnswersCreatedWithASuccessStatus() throws Exception {
        readyPod("free", "web");

        HttpResponse<String> r =
                post(
                        "/api/v1/namespaces/" + NS + "/pods/free/eviction",
                        """
                        {"apiVersion":"policy/v1beta1","kind":"Eviction",
                         "metadata":{"name":"free","namespace":"workloads"}}
                        """);

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(new ObjectMapper().readValue(r.body(), Map.class))
                .containsEntry("kind", "Status")
                .containsEntry("status", "Success");
        assertThat(exists("free")).isFalse();
    }

    @Test
    void aDryRunEvictionLeavesThePod() throws Exception {
        readyPod("free", "web");

        HttpResponse<String> r =
                post(
                        "/api/v1/namespaces/" + NS + "/pods/free/eviction",
                        """
                        {"apiVersion":"policy/v1","kind":"Eviction",
                         "metadata":{"name":"free","namespace":"workloads"},
                         "deleteOptions":{"dryRun":["All"]}}
                        """);

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(exists("free")).isTrue();
    }

    @Test
    void aUidPreconditionThatNoLongerHoldsIsAConflict() throws Exception {
        readyPod("free", "web");

        HttpResponse<String> r =
                post(
                        "/api/v1/namespaces/" + NS + "/pods/free/eviction",
                        """
                        {"apiVersion":"policy/v1","kind":"Eviction",
                         "metadata":{"name":"free","namespace":"workloads"},
                         "deleteOptions":{"preconditions":{"uid":"an-earlier-pod"}}}
                        """);

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("UID in precondition: an-earlier-pod");
        assertThat(exists("free")).isTrue();
    }

    @Test
    void anEvictionNamingAnotherPodIsABadRequest() throws Exception {
        readyPod("free", "web");

        HttpResponse<String> r =
                post(
                        "/api/v1/namespaces/" + NS + "/pods/free/eviction",
                        """
                        {"apiVersion":"policy/v1","kind":"Eviction",
                         "metadata":{"name":"other","namespace":"workloads"}}
                        """);

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("name in URL does not match name in Eviction object");
        assertThat(exists("free")).isTrue();
    }

    @Test
    void aMissingPodIsNotFound() {
        assertThatThrownBy(() -> client.pods().inNamespace(NS).withName("ghost").evict())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> assertThat(e.getCode()).isEqualTo(404));
    }

    @Test
    void aPodUnderTwoBudgetsIsAnInternalError() {
        readyPod("a", "gpu-job");
        readyPod("b", "gpu-job");
        minAvailableOne("first", "gpu-job");
        minAvailableOne("second", "gpu-job");

        assertThatThrownBy(() -> client.pods().inNamespace(NS).withName("a").evict())
                .isInstanceOfSatisfying(
                        KubernetesClientException.class,
                        e -> {
                            assertThat(e.getCode()).isEqualTo(500);
                            assertThat(e.getStatus().getMessage())
                                    .isEqualTo(
                                            "This pod has more than one PodDisruptionBudget, which"
                                                    + " the eviction subresource does not"
                                                    + " support.");
                        });
        assertThat(exists("a")).isTrue();
    }

    @Test
    void theCallIsCreateOnPodsEvictionForRbac() {
        readyPod("free", "web");

        client.pods().inNamespace(NS).withName("free").evict();

        assertThat(api.calls())
                .contains(
                        new ApiCall(
                                "system:serviceaccount:gpu-operator:operator",
                                "create",
                                "",
                                "pods",
                                "eviction",
                                NS,
                                "free"));
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                    HttpRequest.newBuilder(URI.create(api.url() + path))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
