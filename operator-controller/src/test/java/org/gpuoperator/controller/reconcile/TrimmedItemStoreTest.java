package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.gpuoperator.controller.matrix.NodeVersions;
import org.gpuoperator.controller.status.NodeSummary;
import org.junit.jupiter.api.Test;

class TrimmedItemStoreTest {

    static Node realNode() {
        Node n =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("gpu-1")
                        .withLabels(Map.of("nvidia.com/gpu.present", "true"))
                        .withAnnotations(
                                Map.of(
                                        "nvidia.com/gpu-operator.validation",
                                        "driver=ok",
                                        TrimmedItemStore.LAST_APPLIED,
                                        "{\"kind\":\"Node\"}"))
                        .endMetadata()
                        .withNewSpec()
                        .withUnschedulable(true)
                        .endSpec()
                        .withNewStatus()
                        .withAllocatable(Map.of("nvidia.com/gpu", new Quantity("8")))
                        .withCapacity(Map.of("nvidia.com/gpu", new Quantity("8")))
                        .withVolumesInUse("kubernetes.io/csi/driver^vol-1")
                        .endStatus()
                        .build();
        return RealisticNode.shape(n, "2026-12-02T10:00:00Z");
    }

    @Test
    void aTrimmedNodeKeepsWhatTheStepsReadAndLosesTheRest() {
        Node whole = realNode();
        String wholeJson = Serialization.asJson(whole);
        Node trimmed = TrimmedItemStore.trimNode(Serialization.clone(whole));

        assertThat(trimmed.getStatus().getImages()).isEmpty();
        assertThat(trimmed.getStatus().getVolumesInUse()).isEmpty();
        assertThat(trimmed.getMetadata().getManagedFields()).isEmpty();
        assertThat(trimmed.getMetadata().getAnnotations())
                .containsOnlyKeys("nvidia.com/gpu-operator.validation");

        assertThat(NodeChanges.matters(trimmed, whole))
                .as("nothing the gates, the upgrade or the pools read changed")
                .isFalse();
        assertThat(trimmed.getMetadata().getLabels()).isEqualTo(whole.getMetadata().getLabels());
        assertThat(trimmed.getStatus().getConditions())
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("lastHeartbeatTime")
                .isEqualTo(whole.getStatus().getConditions());
        assertThat(trimmed.getStatus().getConditions())
                .allSatisfy(c -> assertThat(c.getLastHeartbeatTime()).isNull());
        assertThat(trimmed.getStatus().getAddresses()).isEqualTo(whole.getStatus().getAddresses());
        assertThat(NodeSummary.advertised(trimmed)).isEqualTo(NodeSummary.advertised(whole));
        assertThat(NodeVersions.of(trimmed)).isEqualTo(NodeVersions.of(whole));
        assertThat(trimmed.getSpec().getUnschedulable()).isTrue();

        int trimmedSize = Serialization.asJson(trimmed).length();
        assertThat(trimmedSize)
                .as("whole %d bytes, trimmed %d", wholeJson.length(), trimmedSize)
                .isLessThan(wholeJson.length() / 4);
    }

    @Test
    void theStoreKeepsTrimmedObjectsUnderTheInformersKey() {
        TrimmedItemStore<Node> store = TrimmedItemStore.nodes();
        Node first = realNode();
        String key = store.getKey(first);
        assertThat(key).isEqualTo("gpu-1");
        assertThat(store.put(key, first)).isNull();
        assertThat(store.get(key).getStatus().getImages()).isEmpty();
        Node second = realNode();
        assertThat(store.put(key, second)).isSameAs(first);
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("gpu-1");
        assertThat(store.values()).containsExactly(second);
        assertThat(store.remove(key)).isSameAs(second);
        assertThat(store.size()).isZero();
    }

    @Test
    void aTrimmedPodKeepsItsSpecStatusAndOtherAnnotations() {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("train")
                        .withNamespace("ml")
                        .withAnnotations(
                                Map.of(
                                        "kubernetes.io/config.mirror",
                                        "x",
                                        TrimmedItemStore.LAST_APPLIED,
                                        "{\"kind\":\"Pod\"}"))
                        .addNewManagedField()
                        .withManager("kubectl")
                        .endManagedField()
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("gpu-1")
                        .endSpec()
                        .withNewStatus()
                        .withPhase("Running")
                        .endStatus()
                        .build();
        Pod whole = Serialization.clone(pod);
        Pod trimmed = TrimmedItemStore.trimPod(pod);
        assertThat(trimmed.getMetadata().getManagedFields()).isEmpty();
        assertThat(trimmed.getMetadata().getAnnotations())
                .containsOnlyKeys("kubernetes.io/config.mirror");
        assertThat(trimmed.getSpec()).isEqualTo(whole.getSpec());
        assertThat(trimmed.getStatus()).isEqualTo(whole.getStatus());
        assertThat(TrimmedItemStore.pods().getKey(trimmed)).isEqualTo("ml/train");
    }
}
