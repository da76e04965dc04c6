package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ApiCallTest {

    private static ApiCall call(String method, String path, Map<String, String> query) {
        return ApiCall.of("u", method, path, query).orElseThrow();
    }

    @Test
    void getOnAnObjectIsGetAndOnACollectionList() {
        assertThat(call("GET", "/api/v1/nodes/n1", Map.of()))
                .isEqualTo(new ApiCall("u", "get", "", "nodes", null, null, "n1"));
        assertThat(call("GET", "/api/v1/namespaces/ns/pods", Map.of()))
                .isEqualTo(new ApiCall("u", "list", "", "pods", null, "ns", null));
    }

    @Test
    void watchParameterMakesAWatchAndANameSelectorNamesTheObject() {
        assertThat(
                        call(
                                "GET",
                                "/api/v1/nodes",
                                Map.of("watch", "true", "fieldSelector", "metadata.name=n1")))
                .isEqualTo(new ApiCall("u", "watch", "", "nodes", null, null, "n1"));
        assertThat(call("GET", "/api/v1/nodes", Map.of("watch", "1")).verb()).isEqualTo("watch");
        assertThat(call("GET", "/api/v1/nodes", Map.of("watch", "false")).verb()).isEqualTo("list");
    }

    @Test
    void writesMapToTheirVerbs() {
        String nf = "/apis/nfd.k8s-sigs.io/v1alpha1/namespaces/gpu-operator/nodefeatures";
        assertThat(call("POST", nf, Map.of()))
                .isEqualTo(
                        new ApiCall(
                                "u",
                                "create",
                                "nfd.k8s-sigs.io",
                                "nodefeatures",
                                null,
                                "gpu-operator",
                                null));
        assertThat(call("PUT", nf + "/n1", Map.of()).verb()).isEqualTo("update");
        assertThat(call("PATCH", "/api/v1/nodes/n1", Map.of()).verb()).isEqualTo("patch");
        assertThat(call("DELETE", nf + "/n1", Map.of()).verb()).isEqualTo("delete");
        assertThat(call("DELETE", nf, Map.of()).verb()).isEqualTo("deletecollection");
    }

    @Test
    void subresourcesAreKeptApartFromTheResource() {
        ApiCall status = call("PATCH", "/api/v1/nodes/n1/status", Map.of());
        assertThat(status.resource()).isEqualTo("nodes");
        assertThat(status.subresource()).isEqualTo("status");
        assertThat(status.resourcePath()).isEqualTo("nodes/status");
        ApiCall log = call("GET", "/api/v1/namespaces/ns/pods/p1/log", Map.of());
        assertThat(log.resourcePath()).isEqualTo("pods/log");
        assertThat(log.verb()).isEqualTo("get");
        assertThat(log.namespace()).isEqualTo("ns");
    }

    @Test
    void pathsThatNameNoResourceAreNotCalls() {
        assertThat(ApiCall.of("u", "GET", "/version", Map.of())).isEmpty();
        assertThat(ApiCall.of("u", "GET", "/apis", Map.of())).isEmpty();
        assertThat(ApiCall.of("u", "GET", "/healthz", Map.of())).isEmpty();
    }

    @Test
    void execIsCreateOnPodsExecWhateverTheMethod() {
        String exec = "/api/v1/namespaces/ns/pods/p1/exec";
        assertThat(call("GET", exec, Map.of("command", "ls")))
                .isEqualTo(new ApiCall("u", "create", "", "pods", "exec", "ns", "p1"));
        assertThat(call("POST", exec, Map.of()).verb()).isEqualTo("create");
        assertThat(call("GET", "/api/v1/namespaces/ns/pods/p1/log", Map.of()).verb())
                .isEqualTo("get");
    }
}
