package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonPatchTest {

    static final Map<String, Object> DS =
            Json.parse(
                    """
                    {"metadata":{"name":"ds","labels":{"a/b":"1"}},
                     "spec":{"template":{"spec":{"containers":[
                       {"name":"c","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}}}}
                    """);

    static Object patch(String json) {
        return Json.parse("{\"p\":" + json + "}").get("p");
    }

    @Test
    void appliesEachOperationInOrderWithoutChangingTheInput() {
        Map<String, Object> out =
                JsonPatch.apply(
                        DS,
                        patch(
                                """
                                [{"op":"test","path":"/spec/template/spec/containers/0/env/0/value","value":"1"},
                                 {"op":"replace","path":"/spec/template/spec/containers/0/env/0/value","value":"9"},
                                 {"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"Z"}},
                                 {"op":"remove","path":"/spec/template/spec/containers/0/env/1"},
                                 {"op":"add","path":"/metadata/labels/c~1d","value":"2"},
                                 {"op":"copy","from":"/metadata/labels/a~1b","path":"/metadata/labels/e"},
                                 {"op":"move","from":"/metadata/labels/e","path":"/metadata/labels/f"}]
                                """));
        assertThat(Json.write(out))
                .isEqualTo(
                        "{\"metadata\":{\"name\":\"ds\",\"labels\":{\"a/b\":\"1\",\"c/d\":\"2\",\"f\":\"1\"}},"
                                + "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":"
                                + "[{\"name\":\"X\",\"value\":\"9\"},{\"name\":\"Z\"}]}]}}}}");
        assertThat(Json.write(DS)).contains("\"value\":\"2\"").doesNotContain("c/d");
    }

    @Test
    void aPatchThatDoesNotApplyNamesTheReasonAsKubeApiserverDoes() {
        assertThatThrownBy(
                        () ->
                                JsonPatch.apply(
                                        DS,
                                        patch(
                                                "[{\"op\":\"replace\",\"path\":\"/spec/foo\",\"value\":1}]")))
                .isInstanceOf(JsonPatch.NotApplicable.class)
                .hasMessage(
                        "replace operation does not apply: doc is missing key: /spec/foo: missing value");
        assertThatThrownBy(
                        () ->
                                JsonPatch.apply(
                                        DS,
                                        patch(
                                                "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"x\"}]")))
                .isInstanceOf(JsonPatch.NotApplicable.class)
                .hasMessage("testing value /metadata/name failed: test failed");
        assertThatThrownBy(
                        () ->
                                JsonPatch.apply(
                                        DS,
                                        patch(
                                                "[{\"op\":\"add\",\"path\":\"/status/x/y\",\"value\":1}]")))
                .isInstanceOf(JsonPatch.NotApplicable.class)
                .hasMessage(
                        "add operation does not apply: doc is missing path: \"/status/x/y\": missing value");
        assertThatThrownBy(
                        () ->
                                JsonPatch.apply(
                                        DS,
                                        patch("[{\"op\":\"remove\",\"path\":\"/metadata/x\"}]")))
                .isInstanceOf(JsonPatch.NotApplicable.class)
                .hasMessage(
                        "error in remove for path: '/metadata/x': Unable to remove nonexistent key: x: missing value");
        assertThatThrownBy(
                        () ->
                                JsonPatch.apply(
                                        DS,
                                        patch(
                                                "[{\"op\":\"replace\",\"path\":\"spec\",\"value\":1}]")))
                .hasMessageContaining("doc is missing path: spec");
        assertThatThrownBy(() -> JsonPatch.apply(DS, patch("[{\"op\":\"frob\",\"path\":\"/a\"}]")))
                .hasMessage("Unexpected kind: frob");
    }

    @Test
    void aBodyThatIsNoListOfOperationsIsABadRequest() {
        assertThatThrownBy(() -> JsonPatch.apply(DS, Map.of("op", "add")))
                .isInstanceOf(IllegalArgumentException.class)
                .isNotInstanceOf(JsonPatch.NotApplicable.class);
    }

    @Test
    void mergePatchMergesMapsRemovesNullsAndReplacesLists() {
        Map<String, Object> out =
                JsonPatch.merge(
                        DS,
                        patch(
                                "{\"metadata\":{\"labels\":{\"a/b\":null,\"n\":\"1\"}},\"spec\":{\"template\":null},\"x\":[1]}"));
        assertThat(out)
                .isEqualTo(
                        Map.of(
                                "metadata",
                                Map.of("name", "ds", "labels", Map.of("n", "1")),
                                "spec",
                                Map.of(),
                                "x",
                                List.of(1)));
        assertThatThrownBy(() -> JsonPatch.merge(DS, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void numbersCompareByValue() {
        assertThat(JsonPatch.sameJson(1, 1.0)).isTrue();
        assertThat(JsonPatch.sameJson(Map.of("a", List.of(1)), Map.of("a", List.of(2)))).isFalse();
    }
}
