package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class RepeatedNodeReportsTest {

    private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

    /** A kubelet's report of gpu-1 as a watch event: its uid, version, heartbeat and one label. */
    private static String report(
            String type, String uid, String version, String heartbeat, String label) {
        Node n =
                new NodeBuilder(TrimmedItemStoreTest.realNode())
                        .editMetadata()
                        .withUid(uid)
                        .withResourceVersion(version)
                        .addToLabels("example.com/x", label)
                        .endMetadata()
                        .build();
        return "{\"type\":\""
                + type
                + "\",\"object\":"
                + FABRIC8.asJson(RealisticNode.shape(n, heartbeat))
                + "}";
    }

    private static Node read(ControllerSerialization s, String event) {
        return (Node) s.unmarshal(event, WatchEvent.class).getObject();
    }

    /** What a controller that never saw a report before reads of {@code event}. */
    private static Node fresh(String event) {
        return read(new ControllerSerialization(), event);
    }

    @Test
    void aReportThatRepeatsTheLastBarItsVersionAndHeartbeatIsNotParsedAgain() {
        ControllerSerialization s = new ControllerSerialization();
        Node first = read(s, report("MODIFIED", "u-1", "11", "2026-12-05T10:00:10Z", "a"));

        String heartbeat = report("MODIFIED", "u-1", "12", "2026-12-05T10:00:20Z", "a");
        Node again = read(s, heartbeat);

        assertThat(again).isEqualTo(fresh(heartbeat));
        assertThat(again.getMetadata().getResourceVersion()).isEqualTo("12");
        assertThat(again.getStatus())
                .as("not parsed: the last node's status")
                .isSameAs(first.getStatus());
        assertThat(again.getSpec()).isSameAs(first.getSpec());
        assertThat(again.getMetadata()).isNotSameAs(first.getMetadata());
        assertThat(first.getMetadata().getResourceVersion())
                .as("the cached node is left as it was")
                .isEqualTo("11");
        assertThat(NodeChanges.matters(first, again)).isFalse();
        // the store's trim writes nothing to the shared status: its unread lists are already empty
        var images = again.getStatus().getImages();
        var conditions = List.copyOf(again.getStatus().getConditions());
        TrimmedItemStore.trimNode(again);
        assertThat(again.getStatus().getImages()).isSameAs(images);
        assertThat(again.getStatus().getConditions()).containsExactlyElementsOf(conditions);
        assertThat(first.getStatus().getImages()).isSameAs(images);

        Node third = read(s, report("MODIFIED", "u-1", "13", "2026-12-05T10:00:30Z", "a"));
        assertThat(third.getStatus()).isSameAs(first.getStatus());
        assertThat(third.getMetadata().getResourceVersion()).isEqualTo("13");
    }

    @Test
    void aNodeGivenAsAddedIsTheSameReportInAModifiedOne() {
        // a watch that starts again may give the nodes it has as ADDED
        ControllerSerialization s = new ControllerSerialization();
        Node added = read(s, report("ADDED", "u-1", "10", "2026-12-05T10:00:00Z", "a"));
        Node again = read(s, report("MODIFIED", "u-1", "11", "2026-12-05T10:00:10Z", "a"));
        assertThat(again.getStatus()).isSameAs(added.getStatus());
        assertThat(RepeatedNodeReports.givenAgain(added, again)).isTrue();

        // a second watch of the same client starts with the node as ADDED: given again, so the
        // two informers hold the same parts and the next report is a repeat to both
        String opened = report("ADDED", "u-1", "11", "2026-12-05T10:00:10Z", "a");
        WatchEvent event = s.unmarshal(opened, WatchEvent.class);
        Node second = (Node) event.getObject();
        assertThat(event.getType()).isEqualTo("ADDED");
        assertThat(second).isEqualTo(fresh(opened));
        assertThat(RepeatedNodeReports.givenAgain(again, second)).isTrue();
        Node next = read(s, report("MODIFIED", "u-1", "12", "2026-12-05T10:00:20Z", "a"));
        assertThat(RepeatedNodeReports.givenAgain(again, next)).isTrue();
        assertThat(RepeatedNodeReports.givenAgain(second, next)).isTrue();
    }

    @Test
    void anyOtherChangeIsParsed() {
        ControllerSerialization s = new ControllerSerialization();
        Node first = read(s, report("MODIFIED", "u-1", "11", "2026-12-05T10:00:10Z", "a"));
        String relabelled = report("MODIFIED", "u-1", "12", "2026-12-05T10:00:20Z", "b");
        Node changed = read(s, relabelled);
        assertThat(changed.getStatus()).isNotSameAs(first.getStatus());
        assertThat(changed).isEqualTo(fresh(relabelled));
        assertThat(changed.getMetadata().getLabels()).containsEntry("example.com/x", "b");
        // a condition's status: parsed too
        String notReady =
                report("MODIFIED", "u-1", "13", "2026-12-05T10:00:30Z", "b")
                        .replace(
                                "\"status\":\"True\",\"type\":\"Ready\"",
                                "\"status\":\"False\",\"type\":\"Ready\"");
        assertThat(notReady).contains("\"status\":\"False\",\"type\":\"Ready\"");
        Node down = read(s, notReady);
        assertThat(down.getStatus()).isNotSameAs(changed.getStatus());
        assertThat(NodeChanges.matters(changed, down)).isTrue();
    }

    @Test
    void aDeletedNodeOrAnotherUidUnderTheSameNameIsParsed() {
        ControllerSerialization s = new ControllerSerialization();
        Node first = read(s, report("MODIFIED", "u-1", "11", "2026-12-05T10:00:10Z", "a"));
        read(s, report("DELETED", "u-1", "12", "2026-12-05T10:00:10Z", "a"));
        Node afterDelete = read(s, report("MODIFIED", "u-1", "13", "2026-12-05T10:00:20Z", "a"));
        assertThat(afterDelete.getStatus()).isNotSameAs(first.getStatus());

        Node other = read(s, report("MODIFIED", "u-2", "14", "2026-12-05T10:00:30Z", "a"));
        assertThat(other.getStatus()).isNotSameAs(afterDelete.getStatus());
        assertThat(other.getMetadata().getUid()).isEqualTo("u-2");
    }

    @Test
    void aNodeNoLongerHeldElsewhereIsForgotten() throws Exception {
        ControllerSerialization s = new ControllerSerialization();
        RepeatedNodeReports reports = new RepeatedNodeReports();
        String event = report("MODIFIED", "u-1", "11", "2026-12-05T10:00:10Z", "a");
        reports.read(UnreadJson.scan(event), text -> s.unmarshal(text, WatchEvent.class));
        assertThat(reports.size()).isEqualTo(1);
        for (int i = 0; i < 100 && reports.size() > 0; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(reports.size()).as("held weakly: the informer no longer caches it").isZero();
    }

    @Test
    void theCopyCarriesEveryFieldOfObjectMetaButTheVersion() throws Exception {
        ObjectMeta meta = new ObjectMeta();
        int n = 0;
        for (Field f : ObjectMeta.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            f.setAccessible(true);
            Class<?> t = f.getType();
            Object value =
                    t == String.class
                            ? "v" + n
                            : t == Long.class
                                    ? Long.valueOf(n)
                                    : java.util.Map.class.isAssignableFrom(t)
                                            ? new HashMap<>()
                                            : java.util.List.class.isAssignableFrom(t)
                                                    ? new ArrayList<>()
                                                    : null;
            assertThat(value).as("a value for ObjectMeta.%s (%s)", f.getName(), t).isNotNull();
            f.set(meta, value);
            n++;
        }
        Node node = new Node("v1", "Node", meta, null, null);

        Node copy = RepeatedNodeReports.withResourceVersion(node, "99");

        assertThat(copy.getMetadata().getResourceVersion()).isEqualTo("99");
        for (Field f : ObjectMeta.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) || f.getName().equals("resourceVersion")) {
                continue;
            }
            f.setAccessible(true);
            assertThat(f.get(copy.getMetadata()))
                    .as("ObjectMeta.%s carried", f.getName())
                    .isSameAs(f.get(meta));
        }
    }

    @Test
    void aNodeIsGivenAgainOnlyWhenEveryPartButTheVersionIsTheSameObject() throws Exception {
        ObjectMeta meta = new ObjectMeta();
        List<Field> fields = new ArrayList<>();
        for (Field f : ObjectMeta.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                fields.add(f);
            }
        }
        for (Field f : fields) {
            f.set(meta, aValue(f.getType(), "v"));
        }
        Node before = new Node("v1", "Node", meta, null, null);
        Node again = RepeatedNodeReports.withResourceVersion(before, "99");
        assertThat(RepeatedNodeReports.givenAgain(before, again)).isTrue();
        assertThat(
                        RepeatedNodeReports.givenAgain(
                                before,
                                fresh(
                                        "{\"type\":\"MODIFIED\",\"object\":"
                                                + FABRIC8.asJson(before)
                                                + "}")))
                .as("a node parsed from the same text is not given again")
                .isFalse();

        for (Field f : fields) {
            if (f.getName().equals("resourceVersion")) {
                continue;
            }
            Node other = RepeatedNodeReports.withResourceVersion(before, "99");
            f.set(other.getMetadata(), aValue(f.getType(), "w"));
            assertThat(RepeatedNodeReports.givenAgain(before, other))
                    .as("ObjectMeta.%s another object", f.getName())
                    .isFalse();
        }
        Node otherStatus = RepeatedNodeReports.withResourceVersion(before, "99");
        otherStatus.setStatus(new io.fabric8.kubernetes.api.model.NodeStatus());
        assertThat(RepeatedNodeReports.givenAgain(before, otherStatus)).isFalse();
        Node otherSpec = RepeatedNodeReports.withResourceVersion(before, "99");
        otherSpec.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
        assertThat(RepeatedNodeReports.givenAgain(before, otherSpec)).isFalse();
    }

    /** A new value of type {@code t}: another object each call. */
    private static Object aValue(Class<?> t, String text) {
        if (t == String.class) {
            return new String(text);
        }
        if (t == Long.class) {
            return Long.valueOf(1_000_000L + text.length());
        }
        if (java.util.Map.class.isAssignableFrom(t)) {
            return new HashMap<>();
        }
        if (List.class.isAssignableFrom(t)) {
            return new ArrayList<>();
        }
        throw new AssertionError("no value for " + t);
    }
}
