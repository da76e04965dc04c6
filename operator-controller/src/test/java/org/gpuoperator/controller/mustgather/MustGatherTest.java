package org.gpuoperator.controller.mustgather;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bundle from a fake cluster: its layout, its index, its redaction, and failures kept apart.
 */
class MustGatherTest {

    static final String NS = "gpu-operator";
    static final Instant NOW = Instant.parse("2026-12-02T09:43:53Z");
    static final String ROOT = "must-gather-20261202T094353Z/";
    static final String TOKEN = "s3cr3t-token-value-42";
    static final String PASSWORD = "hunter2hunter2";
    static final String CERT_LINE = "MIIBszCCAVmgAwIBAgIUQ2Vy";
    static final String CERT =
            "-----BEGIN CERTIFICATE-----\n" + CERT_LINE + "\n-----END CERTIFICATE-----\n";

    static FakeClusterReader cluster() {
        FakeClusterReader c = new FakeClusterReader();
        GenericKubernetesResource policy =
                Serialization.unmarshal(
                        """
                        apiVersion: nvidia.com/v1
                        kind: ClusterPolicy
                        metadata: {name: cluster-policy}
                        spec:
                          driver:
                            env: [{name: LICENSE, value: %s}]
                        status: {state: ready}
                        """
                                .formatted(TOKEN),
                        GenericKubernetesResource.class);
        c.policies.add(policy);
        c.drivers.add(
                Serialization.unmarshal(
                        """
                        apiVersion: nvidia.com/v1alpha1
                        kind: NVIDIADriver
                        metadata: {name: default}
                        spec: {driverType: gpu}
                        """,
                        GenericKubernetesResource.class));
        c.nodes.add(
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("gpu-1")
                        .addToLabels("nvidia.com/gpu.present", "true")
                        .addToLabels("nvidia.com/gpu.deploy.driver", "true")
                        .addToAnnotations("nvidia.com/gpu-operator.validation", "driver=ok")
                        .addToAnnotations("other.io/big", "x")
                        .endMetadata()
                        .withNewStatus()
                        .addNewCondition()
                        .withType("GPUStackReady")
                        .withStatus("True")
                        .withReason("Validated")
                        .endCondition()
                        .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
                        .addToCapacity("nvidia.com/gpu", new Quantity("8"))
                        .endStatus()
                        .build());
        c.nodes.add(
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("nfd-only")
                        .addToLabels("feature.node.kubernetes.io/pci-10de.present", "true")
                        .endMetadata()
                        .build());
        c.nodes.add(
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("cpu-1")
                        .addToLabels("kubernetes.io/os", "linux")
                        .endMetadata()
                        .build());
        c.daemonSets.add(
                new DaemonSetBuilder()
                        .withNewMetadata()
                        .withName("nvidia-device-plugin-daemonset")
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withNewTemplate()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("device-plugin")
                        .addNewEnv()
                        .withName("COPIED")
                        .withValue(PASSWORD)
                        .endEnv()
                        .addNewEnv()
                        .withName("TOKEN")
                        .withNewValueFrom()
                        .withNewSecretKeyRef("token", "creds", false)
                        .endValueFrom()
                        .endEnv()
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build());
        c.pods.add(
                new PodBuilder()
                        .withNewMetadata()
                        .withName("nvidia-device-plugin-daemonset-abcde")
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("gpu-1")
                        .addNewInitContainer()
                        .withName("wait")
                        .endInitContainer()
                        .addNewContainer()
                        .withName("device-plugin")
                        .endContainer()
                        .endSpec()
                        .withNewStatus()
                        .addNewContainerStatus()
                        .withName("device-plugin")
                        .withRestartCount(2)
                        .endContainerStatus()
                        .endStatus()
                        .build());
        c.pods.add(
                new PodBuilder()
                        .withNewMetadata()
                        .withName("gpu-operator-7d9f-xk2p")
                        .withNamespace(NS)
                        .addToLabels("app.kubernetes.io/component", "operator-controller")
                        .endMetadata()
                        .withNewSpec()
                        .addNewContainer()
                        .withName("operator-controller")
                        .addNewPort()
                        .withName("metrics")
                        .withContainerPort(9090)
                        .endPort()
                        .endContainer()
                        .endSpec()
                        .build());
        c.secrets.add(
                new SecretBuilder()
                        .withNewMetadata()
                        .withName("creds")
                        .withNamespace(NS)
                        .endMetadata()
                        .withType("Opaque")
                        .addToData("token", b64(TOKEN))
                        .addToData("password", b64(PASSWORD))
                        .addToData("ca.crt", b64(CERT))
                        .build());
        c.logs.put(NS + "/nvidia-device-plugin-daemonset-abcde/wait", "waited\n");
        c.logs.put(
                NS + "/nvidia-device-plugin-daemonset-abcde/device-plugin",
                "level=info event=started token=" + TOKEN + "\n");
        c.logs.put(
                NS + "/nvidia-device-plugin-daemonset-abcde/device-plugin/previous",
                "level=error event=crashed ca=" + CERT_LINE + " b64=" + b64(PASSWORD) + "\n");
        c.logs.put(NS + "/gpu-operator-7d9f-xk2p/operator-controller", "event=started\n");
        c.proxied.put(
                "gpu-operator-7d9f-xk2p:9090/metrics", "gpu_operator_reconciliation_status 1\n");
        c.events.add(event(NS, "pod-pulled", "Pod", "nvidia-device-plugin-daemonset-abcde"));
        c.events.add(event("default", "gpu-1.ready", "Node", "gpu-1"));
        c.events.add(event("default", "cpu-1.ready", "Node", "cpu-1"));
        c.events.add(event("default", "policy.applied", "ClusterPolicy", "cluster-policy"));
        return c;
    }

    static io.fabric8.kubernetes.api.model.Event event(
            String ns, String name, String kind, String object) {
        return new EventBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns)
                .endMetadata()
                .withNewInvolvedObject()
                .withKind(kind)
                .withName(object)
                .endInvolvedObject()
                .withReason("Seen")
                .withMessage("about " + object)
                .withLastTimestamp("2026-12-02T09:00:00Z")
                .build();
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theArchiveHoldsEachItemUnderItsPathAndTheIndexListsThem() throws Exception {
        Map<String, String> files = Archive.of(MustGather.collect(cluster(), NS, NOW));

        assertThat(files.keySet())
                .containsExactlyInAnyOrder(
                        ROOT + "index.yaml",
                        ROOT + "namespaces/gpu-operator/secrets.yaml",
                        ROOT + "cluster/clusterpolicies/cluster-policy.yaml",
                        ROOT + "cluster/nvidiadrivers/default.yaml",
                        ROOT + "cluster/nodes/gpu-1.yaml",
                        ROOT + "cluster/nodes/nfd-only.yaml",
                        ROOT
                                + "namespaces/gpu-operator/daemonsets/nvidia-device-plugin-daemonset.yaml",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde.yaml",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde/wait.log",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde/device-plugin.log",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde/device-plugin.previous.log",
                        ROOT + "namespaces/gpu-operator/pods/gpu-operator-7d9f-xk2p.yaml",
                        ROOT
                                + "namespaces/gpu-operator/pods/gpu-operator-7d9f-xk2p/operator-controller.log",
                        ROOT + "namespaces/gpu-operator/events.yaml",
                        ROOT + "cluster/events.yaml",
                        ROOT + "metrics/gpu-operator-7d9f-xk2p.prom");

        assertThat(files.get(ROOT + "cluster/clusterpolicies/cluster-policy.yaml"))
                .contains("kind: \"ClusterPolicy\"")
                .contains("state: \"ready\"");
        String node = files.get(ROOT + "cluster/nodes/gpu-1.yaml");
        assertThat(node)
                .contains("nvidia.com/gpu.deploy.driver: \"true\"")
                .contains("type: \"GPUStackReady\"")
                .contains("nvidia.com/gpu-operator.validation: \"driver=ok\"")
                .doesNotContain("other.io/big");
        Map<?, ?> report = Serialization.unmarshal(node, Map.class);
        assertThat(report.get("allocatable")).isEqualTo(Map.of("nvidia.com/gpu", "8"));
        assertThat(files.get(ROOT + "metrics/gpu-operator-7d9f-xk2p.prom"))
                .isEqualTo("gpu_operator_reconciliation_status 1\n");
        assertThat(files.get(ROOT + "namespaces/gpu-operator/events.yaml")).contains("pod-pulled");
        // other namespaces: the GPU node's and the policy's events, not a CPU node's
        assertThat(files.get(ROOT + "cluster/events.yaml"))
                .contains("gpu-1.ready")
                .contains("policy.applied")
                .doesNotContain("cpu-1.ready");

        Map<?, ?> index = Serialization.unmarshal(files.get(ROOT + "index.yaml"), Map.class);
        assertThat(index.get("errors")).isEqualTo(0);
        List<?> items = (List<?>) index.get("items");
        List<Object> listed =
                items.stream().map(i -> (Object) ((Map<?, ?>) i).get("file")).toList();
        for (String path : files.keySet()) {
            if (!path.endsWith("index.yaml")) {
                assertThat(listed)
                        .as("index lists " + path)
                        .contains(path.substring(ROOT.length()));
            }
        }
    }

    @Test
    void noSecretValueIsAnywhereInTheArchiveDecodedOrEncoded() throws Exception {
        Map<String, String> files = Archive.of(MustGather.collect(cluster(), NS, NOW));

        for (Map.Entry<String, String> f : files.entrySet()) {
            for (String secret :
                    List.of(TOKEN, PASSWORD, CERT_LINE, b64(TOKEN), b64(PASSWORD), b64(CERT))) {
                assertThat(f.getValue()).as(f.getKey()).doesNotContain(secret);
            }
        }
        // the Secret as listed: keys, values redacted
        assertThat(files.get(ROOT + "namespaces/gpu-operator/secrets.yaml"))
                .contains("name: \"creds\"")
                .contains("token: \"<redacted>\"")
                .contains("password: \"<redacted>\"")
                .contains("ca.crt: \"<redacted>\"");
        // where a value was, the bundle says which secret's key it was
        String log = ROOT + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde/";
        assertThat(files.get(log + "device-plugin.log"))
                .contains("token=<redacted: secret gpu-operator/creds key token>");
        assertThat(files.get(log + "device-plugin.previous.log"))
                .contains("ca=<redacted: secret gpu-operator/creds key ca.crt>")
                .contains("b64=<redacted: secret gpu-operator/creds key password>");
        assertThat(files.get(ROOT + "cluster/clusterpolicies/cluster-policy.yaml"))
                .contains("<redacted: secret gpu-operator/creds key token>");
        // a reference to a secret stays (it holds no value)
        assertThat(
                        files.get(
                                ROOT
                                        + "namespaces/gpu-operator/daemonsets/nvidia-device-plugin-daemonset.yaml"))
                .contains("secretKeyRef");
    }

    @Test
    void aReadThatFailsIsAnIndexErrorAndTheRestIsCollected() throws Exception {
        FakeClusterReader c = cluster();
        c.failing.put("nodes", "nodes is forbidden: User cannot list resource nodes");
        c.failing.put("podLog:nvidia-device-plugin-daemonset-abcde/device-plugin", "timeout");
        c.failing.put("podProxyGet:gpu-operator-7d9f-xk2p", "503 error trying to reach service");
        Bundle bundle = MustGather.collect(c, NS, NOW);
        Map<String, String> files = Archive.of(bundle);

        assertThat(bundle.errors())
                .extracting(Bundle.Item::item, Bundle.Item::error)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(
                                "nodes", "nodes is forbidden: User cannot list resource nodes"),
                        org.assertj.core.groups.Tuple.tuple(
                                "pod gpu-operator/nvidia-device-plugin-daemonset-abcde container"
                                        + " device-plugin log",
                                "timeout"),
                        org.assertj.core.groups.Tuple.tuple(
                                "controller metrics of pod gpu-operator/gpu-operator-7d9f-xk2p"
                                        + " port 9090",
                                "503 error trying to reach service"));
        String index = files.get(ROOT + "index.yaml");
        assertThat(index).contains("errors: 3").contains("nodes is forbidden");
        assertThat(files)
                .containsKey(ROOT + "cluster/clusterpolicies/cluster-policy.yaml")
                .containsKey(
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-device-plugin-daemonset-abcde/device-plugin.previous.log")
                .doesNotContainKey(ROOT + "cluster/nodes/gpu-1.yaml");
        assertThat(files.get(ROOT + "metrics/unavailable.txt"))
                .contains("could not be scraped")
                .contains("503 error trying to reach service");
    }

    @Test
    void withoutAControllerPodTheArchiveSaysWhyThereAreNoMetrics() throws Exception {
        FakeClusterReader c = cluster();
        c.pods.removeIf(p -> p.getMetadata().getName().startsWith("gpu-operator-"));
        Map<String, String> files = Archive.of(MustGather.collect(c, NS, NOW));

        assertThat(files.get(ROOT + "metrics/unavailable.txt"))
                .contains("no pod labelled app.kubernetes.io/component=operator-controller")
                .contains("namespace gpu-operator");
        assertThat(files.get(ROOT + "index.yaml")).contains("errors: 1");
    }

    @Test
    void unreadableSecretsAreAnErrorAndNoneIsWritten() throws Exception {
        FakeClusterReader c = cluster();
        c.failing.put("secrets", "secrets is forbidden");
        Map<String, String> files = Archive.of(MustGather.collect(c, NS, NOW));

        assertThat(files).doesNotContainKey(ROOT + "namespaces/gpu-operator/secrets.yaml");
        assertThat(files.get(ROOT + "index.yaml"))
                .contains("secrets is forbidden")
                .contains("could not be searched for");
    }

    @Test
    void aNameLongerThanUstarHoldsIsReadBackWhole() throws Exception {
        String longName = "namespaces/gpu-operator/pods/" + "p".repeat(120) + "/container.log";
        Bundle bundle =
                new Bundle(
                        "must-gather-x", List.of(new Bundle.File(longName, "hello\n")), List.of());
        assertThat(Archive.of(bundle))
                .containsExactly(Map.entry("must-gather-x/" + longName, "hello\n"));
    }

    @Test
    void eachPaxRecordStatesItsOwnLength() {
        for (int n = 0; n < 1100; n++) {
            byte[] r = TarGz.paxRecord("path", "x".repeat(n));
            String text = new String(r, StandardCharsets.UTF_8);
            assertThat(Integer.parseInt(text.substring(0, text.indexOf(' '))))
                    .as(text)
                    .isEqualTo(r.length);
        }
    }
}
