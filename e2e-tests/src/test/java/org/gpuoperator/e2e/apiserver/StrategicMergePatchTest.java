package org.gpuoperator.e2e.apiserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrategicMergePatchTest {

    static final Map<String, Object> DS =
            Json.parse(
                    """
            {"metadata":{"name":"ds","labels":{"a":"1","b":"2"},"finalizers":["x"]},
             "spec":{"template":{"spec":{"containers":[
               {"name":"main","image":"v1","ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"A","value":"1"}]},
               {"name":"side","image":"s1"}]}}}}
            """);

    @Test
    void mergesContainersByNameKeepingFieldsThePatchDoesNotName() {
        Map<String, Object> out =
                StrategicMergePatch.apply(
                        DS,
                        Json.parse(
                                """
                {"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"main"},{"name":"side"}],
                  "containers":[{"name":"main","image":"v2","env":[{"name":"B","value":"2"}]}]}}}}
                """));
        List<Map<String, Object>> cs =
                Json.maps(
                        Json.map(Json.map(Json.map(out, "spec"), "template"), "spec"),
                        "containers");
        assertEquals(List.of("main", "side"), cs.stream().map(c -> c.get("name")).toList());
        assertEquals("v2", cs.get(0).get("image"));
        assertEquals(List.of(Map.of("containerPort", 80, "name", "http")), cs.get(0).get("ports"));
        assertEquals(
                List.of(Map.of("name", "A", "value", "1"), Map.of("name", "B", "value", "2")),
                cs.get(0).get("env"));
        assertEquals("s1", cs.get(1).get("image"));
        assertEquals(
                "v1",
                Json.maps(
                                Json.map(Json.map(Json.map(DS, "spec"), "template"), "spec"),
                                "containers")
                        .get(0)
                        .get("image"),
                "the original is not changed");
    }

    @Test
    void deletesByDirectiveAndNullAndMergesFinalizersAsASet() {
        Map<String, Object> out =
                StrategicMergePatch.apply(
                        DS,
                        Json.parse(
                                """
                {"metadata":{"labels":{"a":null,"c":"3"},"finalizers":["x","y"]},
                 "spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}
                """));
        assertEquals(Map.of("b", "2", "c", "3"), Json.map(Json.map(out, "metadata"), "labels"));
        assertEquals(List.of("x", "y"), Json.map(out, "metadata").get("finalizers"));
        assertEquals(
                List.of("main"),
                Json.maps(
                                Json.map(Json.map(Json.map(out, "spec"), "template"), "spec"),
                                "containers")
                        .stream()
                        .map(c -> c.get("name"))
                        .toList());
        Map<String, Object> removed =
                StrategicMergePatch.apply(
                        DS,
                        Json.parse(
                                "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"x\"]}}"));
        assertEquals(List.of(), Json.map(removed, "metadata").get("finalizers"));
    }

    @Test
    void listsWithoutMergeKeyAreReplacedAndAnElementWithoutItsKeyIsAnError() {
        Map<String, Object> out =
                StrategicMergePatch.apply(
                        Json.parse("{\"spec\":{\"args\":[\"a\",\"b\"]}}"),
                        Json.parse("{\"spec\":{\"args\":[\"c\"]}}"));
        assertEquals(List.of("c"), Json.map(out, "spec").get("args"));
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () ->
                                StrategicMergePatch.apply(
                                        DS,
                                        Json.parse(
                                                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"image\":\"v3\"}]}}}}")));
        assertTrue(e.getMessage().contains("containers"), e.getMessage());
    }

    @Test
    void recognisesTheContentType() {
        assertTrue(
                StrategicMergePatch.isStrategic(
                        "application/strategic-merge-patch+json; charset=utf-8"));
        assertEquals(false, StrategicMergePatch.isStrategic("application/merge-patch+json"));
    }
}
