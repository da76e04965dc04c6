package org.gpuoperator.controller.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** core/v1 Events written to the fabric8 mock API server as kubectl describe finds them. */
@EnableKubernetesMockClient(crud = true)
class Fabric8EventSinkTest {

    KubernetesClient client;

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static EventData event(int count, Instant last, String message) {
        return new EventData(
                "default",
                "cluster-policy.1a2b",
                new InvolvedObject("nvidia.com/v1", "ClusterPolicy", null, "cluster-policy", "u1"),
                EventType.WARNING,
                "InvalidSpec",
                message,
                count,
                T0,
                last);
    }

    @Test
    void createsACoreEventAndCountsARepeatWithAMergePatch() {
        Fabric8EventSink sink = new Fabric8EventSink(client, "gpu-operator-abc");
        sink.create(event(1, T0, "spec.x: bad"));
        assertThat(sink.update(event(2, T0.plusSeconds(61), "spec.x: bad"))).isTrue();

        Event e = client.v1().events().inNamespace("default").withName("cluster-policy.1a2b").get();
        assertThat(e.getInvolvedObject().getKind()).isEqualTo("ClusterPolicy");
        assertThat(e.getInvolvedObject().getName()).isEqualTo("cluster-policy");
        assertThat(e.getInvolvedObject().getUid()).isEqualTo("u1");
        assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("nvidia.com/v1");
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReason()).isEqualTo("InvalidSpec");
        assertThat(e.getMessage()).isEqualTo("spec.x: bad");
        assertThat(e.getCount()).isEqualTo(2);
        assertThat(e.getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(e.getLastTimestamp()).isEqualTo("2026-01-01T00:01:01Z");
        assertThat(e.getSource().getComponent()).isEqualTo(Fabric8EventSink.COMPONENT);
        assertThat(e.getReportingComponent()).isEqualTo(Fabric8EventSink.COMPONENT);
        assertThat(e.getReportingInstance()).isEqualTo("gpu-operator-abc");
    }

    @Test
    void anUpdateOfAnEventTheServerNoLongerHasSaysSo() {
        Fabric8EventSink sink = new Fabric8EventSink(client, null);
        assertThat(sink.update(event(2, T0, "m"))).isFalse();
    }
}
