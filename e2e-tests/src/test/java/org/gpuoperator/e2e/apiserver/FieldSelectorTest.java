package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FieldSelectorTest {

    static final Map<String, Object> EVENT =
            Json.parse(
                    """
                    {"metadata":{"name":"p.1","namespace":"default"},
                     "involvedObject":{"kind":"Pod","name":"p","namespace":"default","uid":"u1"},
                     "type":"Warning","reason":"StandInImage","source":{"component":"kubelet"}}
                    """);

    @Test
    void kubectlDescribesSelectorMatchesOnlyItsObjectsEvents() {
        String describe =
                "involvedObject.name=p,involvedObject.namespace=default,involvedObject.kind=Pod,involvedObject.uid=u1";
        assertThat(FieldSelector.parse(describe, "events").matches(EVENT)).isTrue();
        assertThat(
                        FieldSelector.parse(describe.replace("uid=u1", "uid=u2"), "events")
                                .matches(EVENT))
                .isFalse();
        assertThat(FieldSelector.parse("type!=Normal,source=kubelet", "events").matches(EVENT))
                .isTrue();
        assertThat(FieldSelector.parse("reason==Pulled", "events").matches(EVENT)).isFalse();
    }

    @Test
    void aMissingFieldReadsAsEmptyOrGosZeroValue() {
        // a node's events: kubectl describe node asks for involvedObject.namespace=
        assertThat(
                        FieldSelector.parse("involvedObject.namespace=", "events")
                                .matches(Json.parse("{\"involvedObject\":{\"kind\":\"Node\"}}")))
                .isTrue();
        assertThat(
                        FieldSelector.parse("spec.unschedulable=false", "nodes")
                                .matches(Json.parse("{\"spec\":{}}")))
                .isTrue();
        assertThat(
                        FieldSelector.parse(
                                        "spec.nodeName=n1,status.phase!=Failed,status.phase!=Succeeded",
                                        "pods")
                                .matches(
                                        Json.parse(
                                                "{\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}")))
                .isTrue();
    }

    @Test
    void aFieldTheKindDoesNotOfferIsRefusedAsKubeApiserverDoes() {
        assertThatThrownBy(() -> FieldSelector.parse("spec.nodeName=n1", "configmaps"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("field label not supported: spec.nodeName");
        assertThat(FieldSelector.parse("metadata.name=a", "configmaps").isEmpty()).isFalse();
        assertThatThrownBy(() -> FieldSelector.parse("type", "events"))
                .hasMessageContaining("invalid selector");
    }
}
