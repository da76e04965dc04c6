package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class PodEvictionsTest {

    private static final String PATH = "/api/v1/namespaces/work/pods/train/eviction";

    KubernetesMockServer server;
    KubernetesClient client;

    @Test
    void aRefusedEvictionIsAskedOnceNotRetriedByTheClient() {
        server.expect()
                .post()
                .withPath(PATH)
                .andReturn(
                        429,
                        new StatusBuilder()
                                .withStatus("Failure")
                                .withReason("TooManyRequests")
                                .withCode(429)
                                .withMessage(
                                        "Cannot evict pod as it would violate the pod's"
                                                + " disruption budget.")
                                .build())
                .always();
        int before = server.getRequestCount();

        assertThat(PodEvictions.of(client).evict("work", "train"))
                .isEqualTo(PodEvictions.Outcome.BLOCKED);
        assertThat(server.getRequestCount() - before).isEqualTo(1);
    }

    @Test
    void anAcceptedEvictionAndAPodGoneAreToldApart() {
        server.expect()
                .post()
                .withPath(PATH)
                .andReturn(201, new StatusBuilder().withStatus("Success").withCode(201).build())
                .once();
        server.expect()
                .post()
                .withPath(PATH)
                .andReturn(
                        404,
                        new StatusBuilder()
                                .withStatus("Failure")
                                .withReason("NotFound")
                                .withCode(404)
                                .build())
                .once();

        PodEvictions evictions = PodEvictions.of(client);
        assertThat(evictions.evict("work", "train")).isEqualTo(PodEvictions.Outcome.EVICTED);
        assertThat(evictions.evict("work", "train")).isEqualTo(PodEvictions.Outcome.GONE);
    }
}
