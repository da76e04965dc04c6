package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class UnreadJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

    private static final String NODE_EVENT =
            "{\"type\":\"MODIFIED\",\"object\":"
                    + FABRIC8.asJson(TrimmedItemStoreTest.realNode())
                    + "}";

    private static JsonNode tree(String json) throws Exception {
        return JSON.readTree(json);
    }

    /**
     * The event's tree with the given members of the object's metadata and status removed, and a
     * Node's conditions' heartbeat times.
     */
    private static JsonNode without(String json, String[] metadata, String[] status)
            throws Exception {
        JsonNode event = tree(json);
        ObjectNode object = (ObjectNode) event.get("object");
        for (String name : metadata) {
            ((ObjectNode) object.get("metadata")).remove(name);
        }
        for (String name : status) {
            ((ObjectNode) object.get("status")).remove(name);
        }
        if ("Node".equals(object.path("kind").asText())) {
            object.path("status")
                    .path("conditions")
                    .forEach(c -> ((ObjectNode) c).remove("lastHeartbeatTime"));
        }
        return event;
    }

    @Test
    void aKubeletsNodeEventLosesManagedFieldsTheNodeStatusListsAndHeartbeatTimesAndNothingElse()
            throws Exception {
        String stripped = UnreadJson.strip(NODE_EVENT);
        assertThat(NODE_EVENT).contains("lastHeartbeatTime");
        assertThat(stripped).doesNotContain("lastHeartbeatTime");

        assertThat(stripped.length()).isLessThan(NODE_EVENT.length() / 3);
        assertThat(tree(stripped))
                .isEqualTo(
                        without(
                                NODE_EVENT,
                                new String[] {"managedFields"},
                                new String[] {"images", "volumesInUse", "volumesAttached"}));
        // the controller's parse of the whole event is fabric8's of the stripped text
        assertThat(new ControllerSerialization().unmarshal(NODE_EVENT, WatchEvent.class))
                .isEqualTo(FABRIC8.unmarshal(stripped, WatchEvent.class));
    }

    @Test
    void firstLastAndOnlyMembersAreCutWithTheirCommas() throws Exception {
        String first =
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":"
                        + "{\"managedFields\":[{\"a\":1}],\"name\":\"n\"},"
                        + "\"status\":{\"images\":[],\"volumesInUse\":[\"v\"],\"phase\":\"x\"}}}";
        assertThat(UnreadJson.strip(first))
                .isEqualTo(
                        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":"
                                + "{\"name\":\"n\"},\"status\":{\"phase\":\"x\"}}}");
        String last =
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":"
                        + "{\"name\":\"n\",\"managedFields\":[]},"
                        + "\"status\":{\"phase\":\"x\",\"images\":[{\"names\":[\"i\"]}]}}}";
        assertThat(UnreadJson.strip(last))
                .isEqualTo(
                        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":"
                                + "{\"name\":\"n\"},\"status\":{\"phase\":\"x\"}}}");
        String only =
                "{ \"object\" : { \"kind\" : \"Node\" , \"metadata\" : { \"managedFields\" : [ ] } ,"
                        + " \"status\" : {\n\t\"images\" : [ ] , \"volumesAttached\" : [ ] } } }";
        assertThat(tree(UnreadJson.strip(only)))
                .isEqualTo(tree("{\"object\":{\"kind\":\"Node\",\"metadata\":{},\"status\":{}}}"));
    }

    @Test
    void textInsideStringsAndOtherPlacesIsLeftAsItIs() throws Exception {
        // names in string values, escaped quotes and backslashes, braces in strings
        String event =
                "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
                        + "\"annotations\":{\"x\":\"{\\\"managedFields\\\":[1]}\","
                        + "\"y\":\"ends with a backslash \\\\\",\"managedFields\":\"]}\"},"
                        + "\"managedFields\":[{\"fieldsV1\":{\"f:x\":\"}]\\\"\"}}]},"
                        + "\"spec\":{\"images\":[1],\"metadata\":{\"managedFields\":[2]}},"
                        + "\"status\":{\"images\":[{\"names\":[\"\\\"}\"]}],\"nodeInfo\":{\"images\":3}}}}";
        String stripped = UnreadJson.strip(event);
        JsonNode expected = without(event, new String[] {"managedFields"}, new String[] {"images"});
        assertThat(tree(stripped)).isEqualTo(expected);
        assertThat(tree(stripped).at("/object/metadata/annotations/managedFields").asText())
                .isEqualTo("]}");
        assertThat(tree(stripped).at("/object/spec/images").size()).isEqualTo(1);
        assertThat(tree(stripped).at("/object/spec/metadata/managedFields").size()).isEqualTo(1);
        assertThat(tree(stripped).at("/object/status/nodeInfo/images").asInt()).isEqualTo(3);
    }

    @Test
    void onlyANodesStatusListsAndOnlyOnceItsKindIsKnown() throws Exception {
        String pod =
                "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
                        + "{\"name\":\"p\",\"managedFields\":[]},\"status\":{\"images\":[1]}}}";
        assertThat(tree(UnreadJson.strip(pod)))
                .isEqualTo(without(pod, new String[] {"managedFields"}, new String[0]));
        String kindLast =
                "{\"type\":\"ADDED\",\"object\":{\"status\":{\"images\":[1]},\"kind\":\"Node\","
                        + "\"apiVersion\":\"v1\"}}";
        assertThat(UnreadJson.strip(kindLast)).isSameAs(kindLast);
        // the parser still skips them there
        Node node =
                (Node)
                        new ControllerSerialization()
                                .unmarshal(kindLast, WatchEvent.class)
                                .getObject();
        assertThat(node.getStatus().getImages()).isEmpty();
    }

    @Test
    void textThatIsNotAnObjectAsExpectedGoesToTheParserUnchanged() {
        for (String text :
                new String[] {
                    "",
                    "[]",
                    "  ",
                    "{\"object\":{\"metadata\":{\"managedFields\":[}}}",
                    "{\"object\":{\"metadata\":{\"managedFields\":}}}",
                    "{\"object\":{\"metadata\":{\"managedFields\":[1]",
                    "{\"object\" {}}"
                }) {
            assertThat(UnreadJson.strip(text)).as(text).isSameAs(text);
        }
    }

    @Test
    void theScanNotesTheTypeUidAndVersionWhereTheyAreInTheStrippedText() {
        String event =
                "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
                        + "\"managedFields\":[{\"f\":1}],\"uid\":\"u-1\",\"resourceVersion\":\"42\"},"
                        + "\"status\":{\"images\":[1],\"conditions\":[{\"type\":\"Ready\","
                        + "\"lastHeartbeatTime\":\"t\"},\"odd\",{\"lastHeartbeatTime\":\"t\"}]}}}";
        UnreadJson.Scanned scanned = UnreadJson.scan(event);
        assertThat(scanned.type()).isEqualTo("MODIFIED");
        assertThat(scanned.node()).isTrue();
        assertThat(scanned.uid()).isEqualTo("u-1");
        assertThat(scanned.resourceVersion()).isEqualTo("42");
        assertThat(scanned.text())
                .isEqualTo(
                        "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\","
                                + "\"uid\":\"u-1\",\"resourceVersion\":\"42\"},"
                                + "\"status\":{\"conditions\":[{\"type\":\"Ready\"},\"odd\",{}]}}}");
        assertThat(scanned.text().substring(scanned.objectStart(), scanned.objectEnd()))
                .as("the object, in the stripped text")
                .startsWith("{\"kind\":\"Node\"")
                .endsWith("[{\"type\":\"Ready\"},\"odd\",{}]}}");
        // a Pod: no node; an escaped uid is not noted; a heartbeat time outside a node's
        // conditions stays
        UnreadJson.Scanned pod =
                UnreadJson.scan(
                        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
                                + "{\"uid\":\"a\\\\b\",\"resourceVersion\":\"7\"},\"status\":"
                                + "{\"conditions\":[{\"lastHeartbeatTime\":\"t\"}]}}}");
        assertThat(pod.node()).isFalse();
        assertThat(pod.uid()).isNull();
        assertThat(pod.resourceVersion()).isEqualTo("7");
        assertThat(pod.text()).contains("lastHeartbeatTime");
        assertThat(UnreadJson.scan("[]").resourceVersion()).isNull();
        assertThat(UnreadJson.scan("{\"type\":\"ADDED\"}").objectStart()).isEqualTo(-1);
    }
}
