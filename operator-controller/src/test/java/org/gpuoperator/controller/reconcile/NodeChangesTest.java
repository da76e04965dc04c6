package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The roll-out step finds changed nodes itself, from the caches: label changes and operand pod
 * changes count.
 */
class NodeChangesTest {

    private final NodeChanges changes = new NodeChanges();

    private static Node node(String name, String version, Map<String, String> labels) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withResourceVersion(version)
                .withLabels(labels)
                .endMetadata()
                .build();
    }

    private static Pod pod(String name, String node, String version) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .withResourceVersion(version)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    private static Node annotated(String version, Map<String, String> annotations) {
        Node n = node("a", version, Map.of("l", "1"));
        n.getMetadata().setAnnotations(annotations);
        return n;
    }

    @Test
    void theValidatorsReportIsAChangeOtherAnnotationsAreNot() {
        String key = org.gpuoperator.controller.nodes.ValidationReport.ANNOTATION;
        changes.since(List.of(annotated("1", Map.of())).stream(), List.<Pod>of().stream());
        assertThat(
                        changes.since(
                                List.of(annotated("2", Map.of("other", "x"))).stream(),
                                List.<Pod>of().stream()))
                .isEmpty();
        assertThat(
                        changes.since(
                                List.of(annotated("3", Map.of(key, "driver=failed"))).stream(),
                                List.<Pod>of().stream()))
                .containsExactly("a");
        assertThat(
                        NodeChanges.matters(
                                annotated("4", Map.of(key, "driver=ready")),
                                annotated("3", Map.of(key, "driver=failed"))))
                .isTrue();
        assertThat(
                        NodeChanges.matters(
                                annotated("4", Map.of(key, "driver=ready", "other", "y")),
                                annotated("3", Map.of(key, "driver=ready"))))
                .isFalse();
    }

    /**
     * A new validator pod that reports what the one before it did, word for word: only the report's
     * pod changes, and the driver upgrade takes a report from the current pod only (it waited for
     * the validation timeout: DriverUpgradeScenariosIT's failed validation).
     */
    @Test
    void aReportFromANewValidatorPodMattersThoughItsTextIsTheSame() {
        assertThat(
                        NodeChanges.matters(
                                annotated("2", failedBy("v-2")), annotated("1", failedBy("v-1"))))
                .isTrue();
    }

    /** The validator's report of a failed toolkit, by {@code pod}. */
    private static Map<String, String> failedBy(String pod) {
        return Map.of(
                org.gpuoperator.controller.nodes.ValidationReport.ANNOTATION,
                "driver=ready toolkit=failed",
                org.gpuoperator.controller.nodes.ValidationReport.REASON_ANNOTATION,
                "toolkit: broken",
                org.gpuoperator.controller.nodes.ValidationReport.POD_ANNOTATION,
                pod);
    }

    /** What the driver upgrade reads besides labels: cordon, Ready, its own annotations. */
    @Test
    void cordonReadyAndTheUpgradesAnnotationsMatterAHeartbeatDoesNot() {
        Node base = annotated("1", Map.of());
        base.setStatus(
                new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .withLastHeartbeatTime("t1")
                        .endCondition()
                        .build());
        Node heartbeat = new NodeBuilder(base).build();
        heartbeat.getStatus().getConditions().get(0).setLastHeartbeatTime("t2");
        assertThat(NodeChanges.matters(heartbeat, base)).isFalse();

        Node notReady = new NodeBuilder(base).build();
        notReady.getStatus().getConditions().get(0).setStatus("False");
        assertThat(NodeChanges.matters(notReady, base)).isTrue();

        Node cordoned =
                new NodeBuilder(base).withNewSpec().withUnschedulable(true).endSpec().build();
        assertThat(NodeChanges.matters(cordoned, base)).isTrue();

        Node requested = annotated("2", Map.of("nvidia.com/gpu-driver-upgrade-requested", "true"));
        requested.setStatus(base.getStatus());
        assertThat(NodeChanges.matters(requested, base)).isTrue();
        // removed, or another value
        assertThat(NodeChanges.matters(base, requested)).isTrue();
        Node withdrawn = annotated("3", Map.of("nvidia.com/gpu-driver-upgrade-requested", "false"));
        withdrawn.setStatus(base.getStatus());
        assertThat(NodeChanges.matters(withdrawn, requested)).isTrue();
        Node same = annotated("4", Map.of("nvidia.com/gpu-driver-upgrade-requested", "true"));
        same.setStatus(base.getStatus());
        assertThat(NodeChanges.matters(same, requested)).isFalse();
    }

    @Test
    void everythingIsNewAtFirstThenOnlyWhatChanged() {
        assertThat(
                        changes.since(
                                List.of(node("a", "1", Map.of()), node("b", "1", Map.of()))
                                        .stream(),
                                List.of(pod("p", "a", "1")).stream()))
                .containsExactlyInAnyOrder("a", "b");
        assertThat(
                        changes.since(
                                List.of(node("a", "1", Map.of()), node("b", "1", Map.of()))
                                        .stream(),
                                List.of(pod("p", "a", "1")).stream()))
                .isEmpty();
    }

    /** In NVIDIADriver mode the kernel chooses the node's driver pool. */
    @Test
    void aNewKernelOrOsImageIsAChange() {
        Node before = node("a", "1", Map.of("x", "1"));
        before.setStatus(
                new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                        .withNewNodeInfo()
                        .withOsImage("Ubuntu 22.04.4 LTS")
                        .withKernelVersion("5.15.0-105-generic")
                        .endNodeInfo()
                        .build());
        Node after =
                new NodeBuilder(before)
                        .editMetadata()
                        .withResourceVersion("2")
                        .endMetadata()
                        .build();
        after.getStatus().getNodeInfo().setKernelVersion("5.15.0-113-generic");

        changes.since(List.of(before).stream(), List.<Pod>of().stream());
        assertThat(changes.since(List.of(after).stream(), List.<Pod>of().stream()))
                .containsExactly("a");
        assertThat(NodeChanges.matters(after, before)).isTrue();
    }

    @Test
    void aStatusOnlyUpdateIsNoChangeButALabelIs() {
        changes.since(List.of(node("a", "1", Map.of("x", "1"))).stream(), List.<Pod>of().stream());
        assertThat(
                        changes.since(
                                List.of(node("a", "2", Map.of("x", "1"))).stream(),
                                List.<Pod>of().stream()))
                .isEmpty();
        assertThat(
                        changes.since(
                                List.of(node("a", "3", Map.of("x", "2"))).stream(),
                                List.<Pod>of().stream()))
                .containsExactly("a");
    }

    @Test
    void podsChangingMovingOrGoingMarkTheirNodes() {
        List<Node> nodes =
                List.of(
                        node("a", "1", Map.of()),
                        node("b", "1", Map.of()),
                        node("c", "1", Map.of()));
        changes.since(nodes.stream(), List.of(pod("p", "a", "1"), pod("q", "c", "1")).stream());
        assertThat(
                        changes.since(
                                nodes.stream(),
                                List.of(pod("p", "b", "2"), pod("q", "c", "1")).stream()))
                .containsExactlyInAnyOrder("a", "b");
        assertThat(changes.since(nodes.stream(), List.of(pod("p", "b", "2")).stream()))
                .containsExactly("c");
    }

    @Test
    void aRemovedNodeIsAChange() {
        changes.since(List.of(node("a", "1", Map.of())).stream(), List.<Pod>of().stream());
        assertThat(changes.since(List.<Node>of().stream(), List.<Pod>of().stream()))
                .containsExactly("a");
    }
}
