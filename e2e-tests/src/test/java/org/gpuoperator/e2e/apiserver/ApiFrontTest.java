package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.V1;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.cluster.ApiServer;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front answers as kube-apiserver does where the mock alone would not (plain HTTP here). */
class ApiFrontTest {

    @TempDir static Path work;
    static ApiServer api;
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static final String CM = "/api/v1/namespaces/default/configmaps/settings";

    @BeforeAll
    static void start() throws Exception {
        api = ApiServer.start(RepoRoot.find().resolve("deploy/crds"), work, "gpu-operator");
        api.client()
                .configMaps()
                .inNamespace("default")
                .resource(
                        new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("settings")
                                .endMetadata()
                                .addToData("a", "1")
                                .build())
                .create();
        for (String[] e :
                List.of(
                        new String[] {"p1", "u1", "Warning", "StandInImage"},
                        new String[] {"p1", "u1", "Normal", "Started"},
                        new String[] {"p2", "u2", "Normal", "Started"})) {
            api.client()
                    .v1()
                    .events()
                    .inNamespace("default")
                    .resource(
                            new EventBuilder()
                                    .withNewMetadata()
                                    .withName(e[0] + "." + e[3])
                                    .endMetadata()
                                    .withNewInvolvedObject()
                                    .withKind("Pod")
                                    .withName(e[0])
                                    .withNamespace("default")
                                    .withUid(e[1])
                                    .endInvolvedObject()
                                    .withType(e[2])
                                    .withReason(e[3])
                                    .withMessage("m")
                                    .build())
                    .create();
        }
    }

    @AfterAll
    static void stop() {
        api.close();
    }

    static HttpResponse<String> send(String method, String path, String type, byte[] body)
            throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(api.url() + path))
                        .timeout(Duration.ofSeconds(20))
                        .header("Accept", "application/json");
        if (type != null) {
            b.header("Content-Type", type);
        }
        return HTTP.send(
                b.method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> patch(String type, String body) throws Exception {
        return send("PATCH", CM, type, body.getBytes());
    }

    @Test
    void aJsonPatchThatDoesNotApplyGetsKubeApiserversStatusAtOnce() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> r =
                patch(
                        "application/json-patch+json",
                        "[{\"op\":\"replace\",\"path\":\"/data/foo\",\"value\":\"1\"}]");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(r.statusCode()).isEqualTo(422);
        Map<String, Object> status = Json.parse(r.body());
        assertThat(status)
                .containsEntry("kind", "Status")
                .containsEntry("status", "Failure")
                .containsEntry("reason", "Invalid")
                .containsEntry("code", 422)
                .containsEntry(
                        "message",
                        "the server rejected our request due to an error in our request");
        assertThat(Json.maps(Json.map(status, "details"), "causes"))
                .containsExactly(
                        Map.of(
                                "reason",
                                "UnexpectedServerResponse",
                                "message",
                                "replace operation does not apply: doc is missing key: /data/foo: missing value"));
        assertThat(
                        patch(
                                        "application/json-patch+json",
                                        "[{\"op\":\"test\",\"path\":\"/data/a\",\"value\":\"2\"}]")
                                .statusCode())
                .isEqualTo(422);
        assertThat(patch("application/json-patch+json", "{\"op\":\"add\"}").statusCode())
                .isEqualTo(400);
        assertThat(patch("application/merge-patch+json", "[1]").statusCode()).isEqualTo(400);
        assertThat(patch("application/strategic-merge-patch+json", "not json").statusCode())
                .isEqualTo(400);
        assertThat(
                        api.client()
                                .configMaps()
                                .inNamespace("default")
                                .withName("settings")
                                .get()
                                .getData())
                .isEqualTo(Map.of("a", "1"));
    }

    @Test
    void patchesThatApplyAreStored() throws Exception {
        HttpResponse<String> r =
                patch(
                        "application/json-patch+json",
                        "[{\"op\":\"add\",\"path\":\"/data/b\",\"value\":\"2\"}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        r = patch("application/merge-patch+json", "{\"data\":{\"c\":\"3\",\"b\":null}}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Json.map(Json.parse(r.body()), "data")).containsEntry("c", "3");
        assertThat(
                        api.client()
                                .configMaps()
                                .inNamespace("default")
                                .withName("settings")
                                .get()
                                .getData())
                .containsEntry("c", "3")
                .doesNotContainKey("b");
        assertThat(patch("application/merge-patch+json", "{}").statusCode()).isEqualTo(200);
        assertThat(
                        send(
                                        "PATCH",
                                        "/api/v1/namespaces/default/configmaps/none",
                                        "application/merge-patch+json",
                                        "{}".getBytes())
                                .statusCode())
                .isEqualTo(404);
    }

    @Test
    void aProtobufBodyIsStoredAsTheSameObjectInJson() throws Exception {
        byte[] body =
                ProtobufBodiesTest.body(
                        "v1",
                        "ConfigMap",
                        V1.ConfigMap.newBuilder()
                                .setMetadata(
                                        Meta.ObjectMeta.newBuilder()
                                                .setName("from-proto")
                                                .setNamespace("default"))
                                .putData("k", "v")
                                .build());
        HttpResponse<String> r =
                send(
                        "POST",
                        "/api/v1/namespaces/default/configmaps",
                        ProtobufBodies.MEDIA_TYPE,
                        body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).contains("json"));
        assertThat(
                        api.client()
                                .configMaps()
                                .inNamespace("default")
                                .withName("from-proto")
                                .get()
                                .getData())
                .isEqualTo(Map.of("k", "v"));
    }

    @Test
    void eventsAreListedByInvolvedObjectAsKubectlDescribeAsks() throws Exception {
        HttpResponse<String> r =
                send(
                        "GET",
                        "/api/v1/namespaces/default/events?fieldSelector="
                                + java.net.URLEncoder.encode(
                                        "involvedObject.name=p1,involvedObject.namespace=default,"
                                                + "involvedObject.kind=Pod,involvedObject.uid=u1",
                                        java.nio.charset.StandardCharsets.UTF_8)
                                + "&limit=500",
                        null,
                        null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, Object> list = Json.parse(r.body());
        assertThat(list).containsEntry("kind", "EventList");
        assertThat(Json.maps(list, "items"))
                .extracting(Json::name)
                .containsExactlyInAnyOrder("p1.StandInImage", "p1.Started");
        r = send("GET", "/api/v1/events?fieldSelector=type%3DWarning", null, null);
        assertThat(Json.maps(Json.parse(r.body()), "items"))
                .extracting(Json::name)
                .containsExactly("p1.StandInImage");
        r = send("GET", "/api/v1/namespaces/default/events?fieldSelector=spec.x%3D1", null, null);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("field label not supported: spec.x");
    }

    @Test
    void aMissingObjectIsKubeApiserversNotFound() throws Exception {
        HttpResponse<String> r =
                send("GET", "/apis/apps/v1/namespaces/default/deployments/none", null, null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(Json.parse(r.body()))
                .containsEntry("reason", "NotFound")
                .containsEntry("message", "deployments.apps \"none\" not found")
                .containsEntry(
                        "details", Map.of("name", "none", "group", "apps", "kind", "deployments"));
    }

    @Test
    void dryRunWritesAreAnsweredAndNothingIsStored() throws Exception {
        String cm =
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dry\"}}";
        HttpResponse<String> r =
                send(
                        "POST",
                        "/api/v1/namespaces/default/configmaps?dryRun=All",
                        "application/json",
                        cm.getBytes());
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(Json.map(Json.parse(r.body()), "metadata"))
                .containsEntry("namespace", "default");
        assertThat(api.client().configMaps().inNamespace("default").withName("dry").get()).isNull();
        r =
                send(
                        "POST",
                        "/api/v1/namespaces/default/configmaps?dryRun=All",
                        "application/json",
                        cm.replace("dry", "settings").getBytes());
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(Json.parse(r.body()))
                .containsEntry("message", "configmaps \"settings\" already exists");
        r =
                send(
                        "PATCH",
                        CM + "?dryRun=All",
                        "application/merge-patch+json",
                        "{\"data\":{\"z\":\"1\"}}".getBytes());
        assertThat(Json.map(Json.parse(r.body()), "data")).containsEntry("z", "1");
        r =
                send(
                        "DELETE",
                        CM,
                        "application/json",
                        "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"dryRun\":[\"All\"]}"
                                .getBytes());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(
                        api.client()
                                .configMaps()
                                .inNamespace("default")
                                .withName("settings")
                                .get()
                                .getData())
                .doesNotContainKey("z");
    }

    @Test
    void serverSideApplyCreatesThenMerges() throws Exception {
        String path =
                "/api/v1/namespaces/default/configmaps/applied?fieldManager=kubectl&force=false";
        String applied =
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"applied\",\"namespace\":\"default\"},\"data\":{\"a\":\"1\"}}";
        assertThat(
                        send("PATCH", path, "application/apply-patch+yaml", applied.getBytes())
                                .statusCode())
                .isEqualTo(201);
        HttpResponse<String> r =
                send(
                        "PATCH",
                        path,
                        "application/apply-patch+yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  b: '2'\n"
                                .getBytes());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(
                        api.client()
                                .configMaps()
                                .inNamespace("default")
                                .withName("applied")
                                .get()
                                .getData())
                .isEqualTo(Map.of("a", "1", "b", "2"));
    }

    @Test
    void theScaleSubresourceReadsAndSetsReplicas() throws Exception {
        api.client()
                .apps()
                .deployments()
                .inNamespace("default")
                .resource(
                        new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                                .withNewMetadata()
                                .withName("web")
                                .endMetadata()
                                .withNewSpec()
                                .withReplicas(2)
                                .withNewSelector()
                                .addToMatchLabels("app", "web")
                                .endSelector()
                                .endSpec()
                                .build())
                .create();
        String scale = "/apis/apps/v1/namespaces/default/deployments/web/scale";
        HttpResponse<String> r = send("GET", scale, null, null);
        assertThat(Json.parse(r.body()))
                .containsEntry("kind", "Scale")
                .containsEntry("apiVersion", "autoscaling/v1")
                .containsEntry("spec", Map.of("replicas", 2))
                .containsEntry("status", Map.of("replicas", 0, "selector", "app=web"));
        r =
                send(
                        "PATCH",
                        scale,
                        "application/merge-patch+json",
                        "{\"spec\":{\"replicas\":5}}".getBytes());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Json.map(Json.parse(r.body()), "spec")).containsEntry("replicas", 5);
        assertThat(
                        api.client()
                                .apps()
                                .deployments()
                                .inNamespace("default")
                                .withName("web")
                                .get()
                                .getSpec()
                                .getReplicas())
                .isEqualTo(5);
        r =
                send(
                        "PATCH",
                        scale,
                        "application/merge-patch+json",
                        "{\"spec\":{\"replicas\":-1}}".getBytes());
        assertThat(r.statusCode()).isEqualTo(422);
    }

    @Test
    void aTokenRequestGetsATokenNamingTheServiceAccount() throws Exception {
        api.client()
                .serviceAccounts()
                .inNamespace("default")
                .resource(
                        new io.fabric8.kubernetes.api.model.ServiceAccountBuilder()
                                .withNewMetadata()
                                .withName("runner")
                                .endMetadata()
                                .build())
                .create();
        HttpResponse<String> r =
                send(
                        "POST",
                        "/api/v1/namespaces/default/serviceaccounts/runner/token",
                        "application/json",
                        "{\"kind\":\"TokenRequest\",\"apiVersion\":\"authentication.k8s.io/v1\",\"spec\":{\"expirationSeconds\":600}}"
                                .getBytes());
        assertThat(r.statusCode()).isEqualTo(201);
        String token = Json.string(Json.map(Json.parse(r.body()), "status"), "token");
        assertThat(ServiceAccountTokens.caller("Bearer " + token))
                .isEqualTo("system:serviceaccount:default:runner");
        assertThat(
                        send(
                                        "POST",
                                        "/api/v1/namespaces/default/serviceaccounts/none/token",
                                        "application/json",
                                        "{}".getBytes())
                                .statusCode())
                .isEqualTo(404);
    }

    @Test
    void aCollectionDeleteWithAFieldSelectorDeletesOnlyWhatItSelects() throws Exception {
        for (String[] p :
                List.of(new String[] {"on-a", "node-a"}, new String[] {"on-b", "node-b"})) {
            api.client()
                    .pods()
                    .inNamespace("default")
                    .resource(
                            new io.fabric8.kubernetes.api.model.PodBuilder()
                                    .withNewMetadata()
                                    .withName(p[0])
                                    .endMetadata()
                                    .withNewSpec()
                                    .withNodeName(p[1])
                                    .addNewContainer()
                                    .withName("c")
                                    .withImage("busybox")
                                    .endContainer()
                                    .endSpec()
                                    .build())
                    .create();
        }
        HttpResponse<String> r =
                send(
                        "DELETE",
                        "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-a",
                        null,
                        null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Json.maps(Json.parse(r.body()), "items"))
                .extracting(Json::name)
                .containsExactly("on-a");
        assertThat(api.client().pods().inNamespace("default").list().getItems())
                .extracting(p -> p.getMetadata().getName())
                .contains("on-b")
                .doesNotContain("on-a");
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

    @Test
    void thePodProxyReachesThePodsPortByNameOrNumberAndSaysWhenItCannot() throws Exception {
        com.sun.net.httpserver.HttpServer pod =
                com.sun.net.httpserver.HttpServer.create(
                        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        pod.createContext(
                "/metrics",
                x -> {
                    byte[] b = ("up 1 " + x.getRequestURI().getQuery() + "\n").getBytes();
                    x.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
                    x.sendResponseHeaders(200, b.length);
                    x.getResponseBody().write(b);
                    x.close();
                });
        pod.start();
        try {
            int port = pod.getAddress().getPort();
            api.client()
                    .pods()
                    .inNamespace("default")
                    .resource(
                            new io.fabric8.kubernetes.api.model.PodBuilder()
                                    .withNewMetadata()
                                    .withName("exporter")
                                    .endMetadata()
                                    .withNewSpec()
                                    .addNewContainer()
                                    .withName("c")
                                    .addNewPort()
                                    .withName("metrics")
                                    .withContainerPort(port)
                                    .endPort()
                                    .endContainer()
                                    .endSpec()
                                    .withNewStatus()
                                    .withPodIP("127.0.0.1")
                                    .endStatus()
                                    .build())
                    .create();
            String base = "/api/v1/namespaces/default/pods/";

            HttpResponse<String> byName =
                    send("GET", base + "exporter:metrics/proxy/metrics?a=1", null, null);
            assertThat(byName.statusCode()).as(byName.body()).isEqualTo(200);
            assertThat(byName.body()).isEqualTo("up 1 a=1\n");
            assertThat(byName.headers().firstValue("Content-Type"))
                    .contains("text/plain; version=0.0.4");
            assertThat(send("GET", base + "exporter:" + port + "/proxy/metrics", null, null).body())
                    .startsWith("up 1");
            // through fabric8 at the front (api.client() talks to the mock), as must-gather reads
            // it
            try (var viaFront =
                    new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                            .withConfig(
                                    new io.fabric8.kubernetes.client.ConfigBuilder()
                                            .withMasterUrl(api.url())
                                            .build())
                            .build()) {
                assertThat(viaFront.raw(base + "exporter:" + port + "/proxy/metrics"))
                        .startsWith("up 1");
            }

            pod.stop(0);
            HttpResponse<String> down =
                    send("GET", base + "exporter:metrics/proxy/metrics", null, null);
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body())
                    .contains("error trying to reach service: dial tcp 127.0.0.1:" + port);
            assertThat(send("GET", base + "nobody:80/proxy/", null, null).statusCode())
                    .isEqualTo(404);
        } finally {
            pod.stop(0);
        }
    }

    @Test
    void aPodProxyPathNamesThePodItsPortAndThePath() {
        assertThat(PodProxy.parse("/api/v1/namespaces/ns/pods/p:8080/proxy/metrics"))
                .contains(new PodProxy.Target("ns", "p", "http", "8080", "/metrics"));
        assertThat(PodProxy.parse("/api/v1/namespaces/ns/pods/https:p:metrics/proxy"))
                .contains(new PodProxy.Target("ns", "p", "https", "metrics", "/"));
        assertThat(PodProxy.parse("/api/v1/namespaces/ns/pods/p/proxy/a/b"))
                .contains(new PodProxy.Target("ns", "p", "http", "", "/a/b"));
        assertThat(PodProxy.parse("/api/v1/namespaces/ns/pods/p/log")).isEmpty();
    }
}
