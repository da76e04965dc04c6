package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiFrontTest {

    @Test
    void dropsOneFieldsRequirementsFromASelector() {
        assertThat(
                        ApiFront.dropRequirement(
                                "involvedObject.name=gpu-node-1,involvedObject.namespace=,involvedObject.kind=Node",
                                "involvedObject.namespace"))
                .isEqualTo("involvedObject.name=gpu-node-1,involvedObject.kind=Node");
        assertThat(
                        ApiFront.dropRequirement(
                                "involvedObject.namespaceX=a", "involvedObject.namespace"))
                .isEqualTo("involvedObject.namespaceX=a");
        assertThat(
                        ApiFront.dropRequirement(
                                "involvedObject.namespace!=a", "involvedObject.namespace"))
                .isEmpty();
    }

    @Test
    void replacesOrRemovesOneQueryParameter() {
        assertThat(ApiFront.withQueryParam("limit=500&fieldSelector=a%3D1", "fieldSelector", "b=2"))
                .isEqualTo("limit=500&fieldSelector=b%3D2");
        assertThat(ApiFront.withQueryParam("fieldSelector=a%3D1&limit=500", "fieldSelector", ""))
                .isEqualTo("limit=500");
        assertThat(ApiFront.query("a=1&b=x%3Dy&c"))
                .containsEntry("a", "1")
                .containsEntry("b", "x=y")
                .containsEntry("c", "");
    }
}
