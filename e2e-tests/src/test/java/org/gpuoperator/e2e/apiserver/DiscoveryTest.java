package org.gpuoperator.e2e.apiserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiscoveryTest {

    static final Map<String, Object> CRD =
            Json.parse(
                    """
            {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
             "metadata":{"name":"nvidiadrivers.nvidia.com"},
             "spec":{"group":"nvidia.com","scope":"Cluster",
               "names":{"kind":"NVIDIADriver","plural":"nvidiadrivers","singular":"nvidiadriver","shortNames":["nvd"]},
               "versions":[{"name":"v1alpha1","served":true,"subresources":{"status":{}},
                 "additionalPrinterColumns":[{"name":"Status","type":"string","jsonPath":".status.state"},
                                             {"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}]},
                           {"name":"v1alpha0","served":false}]}}
            """);

    @Test
    void coreResourceListHasPodsWithLogEvictionAndStatusSubresources() {
        Map<String, Object> list = Discovery.of(List.of()).resourceList("", "v1").orElseThrow();
        assertEquals("v1", list.get("groupVersion"));
        List<Map<String, Object>> rs = Json.maps(list, "resources");
        Map<String, Object> pods = byName(rs, "pods");
        assertEquals(true, pods.get("namespaced"));
        assertEquals("Pod", pods.get("kind"));
        assertEquals(List.of("po"), pods.get("shortNames"));
        assertTrue(
                ((List<?>) pods.get("verbs"))
                        .containsAll(List.of("get", "list", "watch", "patch", "delete")));
        assertEquals(List.of("get"), byName(rs, "pods/log").get("verbs"));
        Map<String, Object> eviction = byName(rs, "pods/eviction");
        assertEquals("policy", eviction.get("group"));
        assertEquals("Eviction", eviction.get("kind"));
        assertEquals("Pod", byName(rs, "pods/status").get("kind"));
        assertEquals(false, byName(rs, "nodes").get("namespaced"));
    }

    @Test
    void groupsListEveryBuiltinGroupAndTheCrdGroup() {
        Map<String, Object> groups = Discovery.of(List.of(CRD)).groupList();
        List<String> names =
                Json.maps(groups, "groups").stream().map(g -> (String) g.get("name")).toList();
        assertTrue(
                names.containsAll(
                        List.of(
                                "apps",
                                "rbac.authorization.k8s.io",
                                "node.k8s.io",
                                "coordination.k8s.io",
                                "policy",
                                "apiextensions.k8s.io",
                                "nvidia.com")),
                names::toString);
        assertFalse(names.contains(""));
        Map<String, Object> nvidia =
                Json.maps(groups, "groups").stream()
                        .filter(g -> g.get("name").equals("nvidia.com"))
                        .findFirst()
                        .orElseThrow();
        assertEquals(
                Map.of("groupVersion", "nvidia.com/v1alpha1", "version", "v1alpha1"),
                nvidia.get("preferredVersion"));
    }

    @Test
    void crdTypesComeFromTheCrdObjectOnlyForServedVersions() {
        Discovery d = Discovery.of(List.of(CRD));
        Map<String, Object> list = d.resourceList("nvidia.com", "v1alpha1").orElseThrow();
        Map<String, Object> drivers = byName(Json.maps(list, "resources"), "nvidiadrivers");
        assertEquals(false, drivers.get("namespaced"));
        assertEquals("NVIDIADriver", drivers.get("kind"));
        assertEquals(List.of("nvd"), drivers.get("shortNames"));
        assertEquals("nvidiadriver", drivers.get("singularName"));
        byName(Json.maps(list, "resources"), "nvidiadrivers/status");
        assertTrue(d.resourceList("nvidia.com", "v1alpha0").isEmpty());
        assertTrue(d.resourceList("example.com", "v1").isEmpty());
        assertTrue(d.group("example.com").isEmpty());
        assertEquals("APIGroup", d.group("nvidia.com").orElseThrow().get("kind"));
    }

    @Test
    void aCrdWithoutNamesIsAnErrorNamingIt() {
        Map<String, Object> bad =
                Json.parse(
                        "{\"metadata\":{\"name\":\"x.example.com\"},\"spec\":{\"group\":\"example.com\"}}");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> CrdResources.fromCrd(bad));
        assertTrue(e.getMessage().contains("x.example.com"), e.getMessage());
    }

    @Test
    void openApiAnnouncesFieldValidationOnEachPatch() {
        Discovery d = Discovery.of(List.of(CRD));
        assertTrue(Json.map(OpenApi.root(d), "paths").containsKey("apis/nvidia.com/v1alpha1"));
        Map<String, Object> doc = OpenApi.groupVersion(d, "apis/nvidia.com/v1alpha1").orElseThrow();
        Map<String, Object> patch =
                Json.map(
                        Json.map(
                                Json.map(doc, "paths"),
                                "/apis/nvidia.com/v1alpha1/nvidiadrivers/{name}"),
                        "patch");
        assertEquals(
                Map.of("group", "nvidia.com", "version", "v1alpha1", "kind", "NVIDIADriver"),
                patch.get("x-kubernetes-group-version-kind"));
        assertTrue(
                Json.maps(patch, "parameters").stream()
                        .anyMatch(p -> p.get("name").equals("fieldValidation")));
        assertTrue(
                Json.map(
                                Json.map(OpenApi.groupVersion(d, "api/v1").orElseThrow(), "paths"),
                                "/api/v1/namespaces/{namespace}/pods/{name}")
                        .containsKey("patch"));
        assertTrue(OpenApi.groupVersion(d, "apis/example.com/v1").isEmpty());
    }

    @Test
    void apiPathSplitsResourceUrls() {
        assertEquals(
                new ApiPath("", "v1", "gpu-operator", "pods", "p1", "log"),
                ApiPath.parse("/api/v1/namespaces/gpu-operator/pods/p1/log").orElseThrow());
        assertEquals(
                new ApiPath("apps", "v1", null, "daemonsets", null, null),
                ApiPath.parse("/apis/apps/v1/daemonsets").orElseThrow());
        assertEquals(
                new ApiPath("", "v1", null, "namespaces", "gpu-operator", null),
                ApiPath.parse("/api/v1/namespaces/gpu-operator").orElseThrow());
        assertEquals(
                new ApiPath("", "v1", null, "namespaces", "gpu-operator", "status"),
                ApiPath.parse("/api/v1/namespaces/gpu-operator/status").orElseThrow());
        assertEquals(
                new ApiPath("nvidia.com", "v1", null, "clusterpolicies", "cp", "status"),
                ApiPath.parse("/apis/nvidia.com/v1/clusterpolicies/cp/status").orElseThrow());
        assertTrue(ApiPath.parse("/apis/apps/v1").isEmpty());
        assertTrue(ApiPath.parse("/version").isEmpty());
    }

    private static Map<String, Object> byName(List<Map<String, Object>> rs, String name) {
        return rs.stream()
                .filter(r -> r.get("name").equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + rs));
    }
}
