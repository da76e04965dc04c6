package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.IntStr;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bodies as kubectl's typed clients write them: k8s\0, then a runtime.Unknown. */
class ProtobufBodiesTest {

    static byte[] body(String apiVersion, String kind, Message msg) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {'k', '8', 's', 0});
        out.writeBytes(
                Runtime.Unknown.newBuilder()
                        .setTypeMeta(
                                Runtime.TypeMeta.newBuilder()
                                        .setApiVersion(apiVersion)
                                        .setKind(kind))
                        .setRaw(msg.toByteString())
                        .setContentType("")
                        .build()
                        .toByteArray());
        return out.toByteArray();
    }

    /** What Go's gogo-protobuf writes for ObjectMeta: its non-pointer fields even when empty. */
    static Meta.ObjectMeta.Builder meta(String name) {
        return Meta.ObjectMeta.newBuilder()
                .setName(name)
                .setGenerateName("")
                .setNamespace("")
                .setResourceVersion("")
                .setGeneration(0)
                .setCreationTimestamp(Meta.Time.newBuilder().setSeconds(0).setNanos(0));
    }

    @Test
    void aConfigMapAsKubectlCreateConfigmapSendsIt() {
        Map<String, Object> cm =
                ProtobufBodies.decode(
                        body(
                                "v1",
                                "ConfigMap",
                                V1.ConfigMap.newBuilder()
                                        .setMetadata(meta("time-slicing-config"))
                                        .putData("any", "version: v1\n")
                                        .putData("empty", "")
                                        .build()));
        assertThat(cm)
                .isEqualTo(
                        Map.of(
                                "apiVersion",
                                "v1",
                                "kind",
                                "ConfigMap",
                                "metadata",
                                Map.of("name", "time-slicing-config"),
                                "data",
                                Map.of("any", "version: v1\n", "empty", "")));
    }

    @Test
    void secretBytesAreBase64AsInJson() {
        Map<String, Object> s =
                ProtobufBodies.decode(
                        body(
                                "v1",
                                "Secret",
                                V1.Secret.newBuilder()
                                        .setMetadata(meta("licensing-config"))
                                        .putData(
                                                "client_configuration_token.tok",
                                                ByteString.copyFrom(
                                                        "tok\n", StandardCharsets.UTF_8))
                                        .setType("Opaque")
                                        .build()));
        assertThat(Json.map(s, "data")).containsEntry("client_configuration_token.tok", "dG9rCg==");
        assertThat(s).containsEntry("type", "Opaque");
    }

    @Test
    void aDeploymentWithQuantitiesIntOrStringAndTimes() {
        V1.Container container =
                V1.Container.newBuilder()
                        .setName("nginx")
                        .setImage("nginx")
                        .setResources(
                                V1.ResourceRequirements.newBuilder()
                                        .putLimits(
                                                "nvidia.com/gpu",
                                                Resource.Quantity.newBuilder()
                                                        .setString("1")
                                                        .build()))
                        .addPorts(V1.ContainerPort.newBuilder().setContainerPort(80).setHostPort(0))
                        .setStdin(false)
                        .setReadinessProbe(
                                V1.Probe.newBuilder()
                                        .setHandler(
                                                V1.ProbeHandler.newBuilder()
                                                        .setHttpGet(
                                                                V1.HTTPGetAction.newBuilder()
                                                                        .setPath("/")
                                                                        .setPort(
                                                                                IntStr.IntOrString
                                                                                        .newBuilder()
                                                                                        .setType(1)
                                                                                        .setStrVal(
                                                                                                "http")))))
                        .setTerminationMessagePath("")
                        .build();
        V1Apps.Deployment d =
                V1Apps.Deployment.newBuilder()
                        .setMetadata(
                                meta("web")
                                        .putLabels("app", "web")
                                        .setCreationTimestamp(
                                                Meta.Time.newBuilder().setSeconds(1_796_205_600L)))
                        .setSpec(
                                V1Apps.DeploymentSpec.newBuilder()
                                        .setReplicas(0)
                                        .setMinReadySeconds(0)
                                        .setSelector(
                                                Meta.LabelSelector.newBuilder()
                                                        .putMatchLabels("app", "web"))
                                        .setTemplate(
                                                V1.PodTemplateSpec.newBuilder()
                                                        .setMetadata(
                                                                meta("").putLabels("app", "web"))
                                                        .setSpec(
                                                                V1.PodSpec.newBuilder()
                                                                        .addContainers(container)))
                                        .setStrategy(V1Apps.DeploymentStrategy.newBuilder()))
                        .build();
        Map<String, Object> out = ProtobufBodies.decode(body("apps/v1", "Deployment", d));
        assertThat(out).containsEntry("apiVersion", "apps/v1").containsEntry("kind", "Deployment");
        assertThat(Json.map(out, "metadata"))
                .containsEntry("creationTimestamp", "2026-12-02T10:00:00Z")
                .containsEntry("labels", Map.of("app", "web"));
        Map<String, Object> spec = Json.map(out, "spec");
        assertThat(spec)
                .containsEntry("replicas", 0)
                .doesNotContainKey("minReadySeconds")
                .containsEntry("strategy", Map.of())
                .containsEntry("selector", Map.of("matchLabels", Map.of("app", "web")));
        Map<String, Object> c =
                Json.maps(Json.map(Json.map(spec, "template"), "spec"), "containers").getFirst();
        assertThat(c)
                .containsEntry("name", "nginx")
                .containsEntry("ports", List.of(Map.of("containerPort", 80)))
                .containsEntry("resources", Map.of("limits", Map.of("nvidia.com/gpu", "1")))
                .doesNotContainKey("terminationMessagePath")
                .doesNotContainKey("stdin");
        assertThat(Json.map(Json.map(c, "readinessProbe"), "httpGet"))
                .containsEntry("port", "http");
    }

    @Test
    void whatItCannotDecodeIsRefusedNotDropped() {
        assertThatThrownBy(() -> ProtobufBodies.decode("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("k8s\\0");
        assertThatThrownBy(
                        () ->
                                ProtobufBodies.decode(
                                        body(
                                                "example.com/v1",
                                                "Widget",
                                                V1.ConfigMap.getDefaultInstance())))
                .hasMessageContaining("example.com/v1 Widget");
        // field 99 of a ConfigMap: a newer Kubernetes than the messages know
        V1.ConfigMap unknownField =
                V1.ConfigMap.newBuilder()
                        .setMetadata(meta("x"))
                        .setUnknownFields(
                                com.google.protobuf.UnknownFieldSet.newBuilder()
                                        .addField(
                                                99,
                                                com.google.protobuf.UnknownFieldSet.Field
                                                        .newBuilder()
                                                        .addVarint(1)
                                                        .build())
                                        .build())
                        .build();
        assertThatThrownBy(() -> ProtobufBodies.decode(body("v1", "ConfigMap", unknownField)))
                .hasMessageContaining("[99]");
    }

    @Test
    void goDurations() {
        assertThat(ProtobufBodies.goDuration(3_600_000_000_000L)).isEqualTo("1h0m0s");
        assertThat(ProtobufBodies.goDuration(1_500_000_000L)).isEqualTo("1.5s");
        assertThat(ProtobufBodies.goDuration(0)).isEqualTo("0s");
    }

    @Test
    void protoNames() {
        assertThat(ProtobufBodies.protoName("v1", "Namespace"))
                .isEqualTo("k8s.io.api.core.v1.Namespace");
        assertThat(ProtobufBodies.protoName("rbac.authorization.k8s.io/v1", "Role"))
                .isEqualTo("k8s.io.api.rbac.v1.Role");
    }
}
