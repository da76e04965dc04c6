package org.gpuoperator.migmanager.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node's pods as the MIG manager reads them: generic resources, as the API server sends them.
 */
class KubeMigNodeAccessTest {

    private static GenericKubernetesResource pod(String json) {
        return Serialization.unmarshal(json, GenericKubernetesResource.class);
    }

    private static final List<GenericKubernetesResource> PODS =
            List.of(
                    pod(
                            """
                            {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ml","name":"train",
                             "labels":{"job":"t"}},
                             "spec":{"nodeName":"n1","containers":[{"name":"c",
                              "resources":{"limits":{"nvidia.com/gpu":"1","cpu":"2"}}}]},
                             "status":{"phase":"Running"}}"""),
                    pod(
                            """
                            {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ml","name":"init-only"},
                             "spec":{"initContainers":[{"name":"i",
                              "resources":{"requests":{"nvidia.com/mig-1g.10gb":"1"}}}],
                              "containers":[{"name":"c"}]},
                             "status":{"phase":"Pending"}}"""),
                    pod(
                            """
                            {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"ml","name":"done"},
                             "spec":{"containers":[{"name":"c",
                              "resources":{"limits":{"nvidia.com/gpu":"1"}}}]},
                             "status":{"phase":"Succeeded"}}"""),
                    pod(
                            """
                            {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"web","name":"cpu",
                             "labels":{"app.kubernetes.io/name":"web"}},
                             "spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1"}}}]}}"""),
                    pod(
                            """
                            {"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"gpu-operator",
                             "name":"nvidia-device-plugin-daemonset-x",
                             "labels":{"app":"nvidia-device-plugin-daemonset"}},
                             "spec":{"containers":[{"name":"p"}]},"status":{"phase":"Running"}}"""));

    private final KubeMigNodeAccess access = new KubeMigNodeAccess(null, "n1", node -> PODS);

    @Test
    void gpuPodsAreTheUnfinishedOnesThatNameAnNvidiaResource() {
        assertThat(access.pods(true, false).gpuHolders())
                .containsExactly("ml/init-only", "ml/train");
    }

    @Test
    void clientPodsAreFoundByTheirAppLabelAndPodsWithoutOneAreSkipped() {
        // a pod with labels but no app label once made this throw (Map.of refuses a null value)
        assertThat(access.pods(false, true).clients())
                .containsExactly("gpu-operator/nvidia-device-plugin-daemonset-x");
    }

    @Test
    void bothListsComeFromOneReadAndNoneIsMadeWhenNothingIsAsked() {
        java.util.concurrent.atomic.AtomicInteger reads =
                new java.util.concurrent.atomic.AtomicInteger();
        KubeMigNodeAccess counted =
                new KubeMigNodeAccess(
                        null,
                        "n1",
                        node -> {
                            reads.incrementAndGet();
                            return PODS;
                        });
        MigNodeAccess.Pods both = counted.pods(true, true);
        assertThat(both.gpuHolders()).containsExactly("ml/init-only", "ml/train");
        assertThat(both.clients()).containsExactly("gpu-operator/nvidia-device-plugin-daemonset-x");
        assertThat(reads).hasValue(1);
        assertThat(counted.pods(true, false).clients()).isEmpty();
        assertThat(counted.pods(false, false)).isEqualTo(MigNodeAccess.Pods.NONE);
        assertThat(reads).hasValue(2);
    }

    @Test
    void theNodesPodsAreListedAsCorePodsByTheNodesFieldSelector() throws Exception {
        KubernetesMockServer server = new KubernetesMockServer(false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        try (KubernetesClient client = server.createClient()) {
            server.expect()
                    .get()
                    .withPath("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1")
                    .andReturn(
                            200,
                            "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{},\"items\":"
                                    + Serialization.asJson(PODS)
                                    + "}")
                    .once();
            MigNodeAccess.Pods pods = new KubeMigNodeAccess(client, "n1").pods(true, true);
            assertThat(pods.gpuHolders()).containsExactly("ml/init-only", "ml/train");
            assertThat(pods.clients())
                    .containsExactly("gpu-operator/nvidia-device-plugin-daemonset-x");
            assertThat(server.getRequestCount()).isEqualTo(1);
        } finally {
            server.destroy();
        }
    }

    @Test
    void aPodWithNoSpecOrStatusHoldsNothingAndIsRunning() {
        NodePod bare = NodePod.of(pod("{\"metadata\":{\"namespace\":\"a\",\"name\":\"b\"}}"));
        assertThat(bare).isEqualTo(new NodePod("a/b", null, null, false));
        assertThat(bare.running()).isTrue();
    }
}
