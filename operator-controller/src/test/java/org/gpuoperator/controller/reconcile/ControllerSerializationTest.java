package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.junit.jupiter.api.Test;

class ControllerSerializationTest {

    private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();
    private static final ControllerSerialization OURS = new ControllerSerialization();

    /** A kubelet-shaped node as the API server writes it (apiVersion and kind first). */
    private static final String NODE_JSON = FABRIC8.asJson(TrimmedItemStoreTest.realNode());

    /** fabric8's parse with the unread fields emptied: what ours must give. */
    private static Node expected(String json) {
        Node n = FABRIC8.unmarshal(json, Node.class);
        UnreadFields.emptyNode(n);
        return n;
    }

    private static void assertNothingUnread(Node n) {
        assertThat(n.getMetadata().getManagedFields()).isEmpty();
        assertThat(n.getStatus().getImages()).isEmpty();
        assertThat(n.getStatus().getVolumesInUse()).isEmpty();
        assertThat(n.getStatus().getVolumesAttached()).isEmpty();
        assertThat(n.getStatus().getConditions())
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c.getLastHeartbeatTime()).isNull());
    }

    @Test
    void aWatchEventsNodeLacksTheUnreadFieldsAndEqualsFabric8sParseInTheRest() {
        Node whole = FABRIC8.unmarshal(NODE_JSON, Node.class);
        assertThat(whole.getStatus().getImages()).hasSize(50);
        assertThat(whole.getMetadata().getManagedFields()).hasSize(1);
        assertThat(whole.getStatus().getVolumesInUse()).hasSize(1);

        WatchEvent event =
                OURS.unmarshal(
                        "{\"type\":\"MODIFIED\",\"object\":" + NODE_JSON + "}", WatchEvent.class);

        assertThat(event.getType()).isEqualTo("MODIFIED");
        Node node = (Node) event.getObject();
        assertNothingUnread(node);
        assertThat(node).isEqualTo(expected(NODE_JSON));
        // what the steps read, once more by name
        assertThat(node.getMetadata().getLabels()).isEqualTo(whole.getMetadata().getLabels());
        assertThat(node.getMetadata().getAnnotations())
                .isEqualTo(whole.getMetadata().getAnnotations());
        assertThat(node.getStatus().getConditions())
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("lastHeartbeatTime")
                .isEqualTo(whole.getStatus().getConditions());
        assertThat(node.getStatus().getNodeInfo()).isEqualTo(whole.getStatus().getNodeInfo());
        assertThat(node.getStatus().getAllocatable()).isEqualTo(whole.getStatus().getAllocatable());
        assertThat(node.getSpec()).isEqualTo(whole.getSpec());
        assertThat(NodeChanges.matters(node, whole)).isFalse();
        // and the store, which empties the same fields on another client's objects, agrees
        assertThat(TrimmedItemStore.trimNode(node))
                .isEqualTo(TrimmedItemStore.trimNode(FABRIC8.unmarshal(NODE_JSON, Node.class)));
    }

    @Test
    void typedReadsListsAndUntypedReadsSkipTheSame() {
        assertThat(OURS.unmarshal(NODE_JSON, Node.class)).isEqualTo(expected(NODE_JSON));
        KubernetesResource untyped = OURS.unmarshal(NODE_JSON);
        assertThat(untyped).isEqualTo(expected(NODE_JSON));
        NodeList list =
                OURS.unmarshal(
                        "{\"apiVersion\":\"v1\",\"kind\":\"NodeList\",\"metadata\":{},\"items\":["
                                + NODE_JSON
                                + "]}",
                        NodeList.class);
        assertThat(list.getItems()).singleElement().isEqualTo(expected(NODE_JSON));
    }

    @Test
    void kindAfterOtherFieldsOrMissingOrUnknownReadsAsFabric8Does() {
        // kind last: the fields before it are buffered, then the class is the same
        String kindLast =
                "{\"metadata\":{\"name\":\"n\",\"managedFields\":[{\"manager\":\"m\"}]},"
                        + "\"status\":{\"images\":[{\"names\":[\"a\"]}]},"
                        + "\"apiVersion\":\"v1\",\"kind\":\"Node\"}";
        WatchEvent e =
                OURS.unmarshal(
                        "{\"object\":" + kindLast + ",\"type\":\"ADDED\"}", WatchEvent.class);
        assertThat(e.getType()).isEqualTo("ADDED");
        assertThat(e.getObject()).isInstanceOf(Node.class).isEqualTo(expected(kindLast));

        String unknown =
                "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"},"
                        + "\"spec\":{\"size\":3}}";
        KubernetesResource ours = OURS.unmarshal(unknown);
        assertThat(ours)
                .isInstanceOf(GenericKubernetesResource.class)
                .isEqualTo(FABRIC8.unmarshal(unknown));

        String noKind = "{\"metadata\":{\"name\":\"x\"},\"data\":{\"a\":1}}";
        // the object first: the parser must stop at its end for the event's next field
        String event = "{\"object\":" + noKind + ",\"type\":\"ADDED\"}";
        assertThat(OURS.unmarshal(event, WatchEvent.class))
                .isEqualTo(FABRIC8.unmarshal(event, WatchEvent.class));
    }

    @Test
    void everyKindLosesManagedFieldsOnlyAndCustomResourcesStillParse() {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("p")
                        .withNamespace("ns")
                        .addNewManagedField()
                        .withManager("kubelet")
                        .endManagedField()
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("gpu-1")
                        .endSpec()
                        .build();
        HasMetadata read =
                (HasMetadata)
                        OURS.unmarshal(
                                        "{\"type\":\"ADDED\",\"object\":"
                                                + FABRIC8.asJson(pod)
                                                + "}",
                                        WatchEvent.class)
                                .getObject();
        assertThat(read.getMetadata().getManagedFields()).isEmpty();
        pod.getMetadata().setManagedFields(List.of());
        assertThat(read).isEqualTo(pod);

        ClusterPolicy policy = new ClusterPolicy();
        policy.setMetadata(
                new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                        .withName("cluster-policy")
                        .build());
        OURS.registerKubernetesResource(ClusterPolicy.class);
        assertThat((Object) OURS.unmarshal(FABRIC8.asJson(policy))).isEqualTo(policy);
    }

    @Test
    void writesAreUnchanged() {
        Node whole = TrimmedItemStoreTest.realNode();
        assertThat(OURS.asJson(whole)).isEqualTo(NODE_JSON);
    }
}
