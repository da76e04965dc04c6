package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.controller.ControllerMain;
import org.gpuoperator.controller.mustgather.Fabric8ClusterReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code must-gather} through fabric8 against the mock API server: every kind is read with the
 * requests a real API server answers, logs and the metrics through the pod proxy, and the archive
 * written where {@code --output} says holds no Secret data.
 */
@EnableKubernetesMockClient(crud = true)
class MustGatherCommandTest {

    static final String NS = "gpu-operator";
    static final String SECRET = "very-secret-pull-token";
    static final Instant NOW = Instant.parse("2026-12-02T09:43:53Z");
    static final String ROOT = "must-gather-20261202T094353Z/";

    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir Path dir;

    @Test
    void theArchiveFromAClusterHoldsEveryKindAndNoSecretData() throws Exception {
        try (InputStream in =
                ClusterPolicy.class.getResourceAsStream(
                        "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
        client.namespaces()
                .resource(
                        new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .create();
        client.genericKubernetesResources("nvidia.com/v1", "ClusterPolicy")
                .resource(
                        Serialization.unmarshal(
                                """
                                apiVersion: nvidia.com/v1
                                kind: ClusterPolicy
                                metadata: {name: cluster-policy}
                                spec: {driver: {enabled: true}}
                                """,
                                GenericKubernetesResource.class))
                .create();
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName("gpu-1")
                                .addToLabels("nvidia.com/gpu.present", "true")
                                .endMetadata()
                                .build())
                .create();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .resource(
                        new DaemonSetBuilder()
                                .withNewMetadata()
                                .withName("nvidia-driver-daemonset")
                                .endMetadata()
                                .build())
                .create();
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("nvidia-driver-daemonset-x1")
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("driver-agent")
                                .endContainer()
                                .endSpec()
                                .withNewStatus()
                                .addNewContainerStatus()
                                .withName("driver-agent")
                                .withRestartCount(1)
                                .endContainerStatus()
                                .endStatus()
                                .build())
                .create();
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("gpu-operator-abc")
                                .addToLabels("app.kubernetes.io/component", "operator-controller")
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("operator-controller")
                                .addNewPort()
                                .withName("metrics")
                                .withContainerPort(8080)
                                .endPort()
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        client.secrets()
                .inNamespace(NS)
                .resource(
                        new SecretBuilder()
                                .withNewMetadata()
                                .withName("pull")
                                .endMetadata()
                                .addToData(
                                        "token",
                                        Base64.getEncoder()
                                                .encodeToString(
                                                        SECRET.getBytes(StandardCharsets.UTF_8)))
                                .build())
                .create();
        client.v1()
                .events()
                .inNamespace(NS)
                .resource(
                        new EventBuilder()
                                .withNewMetadata()
                                .withName("driver.pulled")
                                .endMetadata()
                                .withNewInvolvedObject()
                                .withKind("Pod")
                                .withName("nvidia-driver-daemonset-x1")
                                .endInvolvedObject()
                                .withReason("Pulled")
                                .build())
                .create();
        String pods = "/api/v1/namespaces/" + NS + "/pods/";
        server.expect()
                .get()
                .withPath(pods + "nvidia-driver-daemonset-x1/log?container=driver-agent")
                .andReturn(200, "event=loaded token=" + SECRET + "\n")
                .always();
        server.expect()
                .get()
                .withPath(
                        pods
                                + "nvidia-driver-daemonset-x1/log?container=driver-agent&previous=true")
                .andReturn(200, "event=crashed\n")
                .always();
        // a container with no log yet: the API server's 404 is a note, not an error
        server.expect()
                .get()
                .withPath(pods + "gpu-operator-abc/log?container=operator-controller")
                .andReturn(404, "")
                .always();
        server.expect()
                .get()
                .withPath(pods + "gpu-operator-abc:8080/proxy/metrics")
                .andReturn(200, "gpu_operator_reconciliation_status 1\n")
                .always();

        Path out = dir.resolve("bundles/support.tar.gz");
        MustGatherCommand command = new MustGatherCommand();
        CommandLine cl = new CommandLine(command);
        StringWriter stdout = new StringWriter();
        cl.setOut(new PrintWriter(stdout));
        cl.setErr(new PrintWriter(new StringWriter()));
        cl.parseArgs("--output", out.toString(), "--namespace", NS);
        assertThat(command.gather(new Fabric8ClusterReader(client), NOW)).isZero();

        assertThat(stdout.toString()).startsWith("wrote " + out + ": ");
        Map<String, String> files = read(out);
        assertThat(files)
                .containsKeys(
                        ROOT + "index.yaml",
                        ROOT + "cluster/clusterpolicies/cluster-policy.yaml",
                        ROOT + "cluster/nodes/gpu-1.yaml",
                        ROOT + "namespaces/gpu-operator/daemonsets/nvidia-driver-daemonset.yaml",
                        ROOT + "namespaces/gpu-operator/pods/nvidia-driver-daemonset-x1.yaml",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-driver-daemonset-x1/driver-agent.log",
                        ROOT
                                + "namespaces/gpu-operator/pods/nvidia-driver-daemonset-x1/driver-agent.previous.log",
                        ROOT + "namespaces/gpu-operator/events.yaml",
                        ROOT + "namespaces/gpu-operator/secrets.yaml",
                        ROOT + "cluster/events.yaml",
                        ROOT + "metrics/gpu-operator-abc.prom");
        assertThat(files.get(ROOT + "metrics/gpu-operator-abc.prom"))
                .contains("gpu_operator_reconciliation_status 1");
        assertThat(files.get(ROOT + "namespaces/gpu-operator/events.yaml"))
                .contains("driver.pulled");
        assertThat(files.get(ROOT + "index.yaml"))
                .contains("errors: 0")
                .contains(
                        "item: \"pod gpu-operator/gpu-operator-abc container operator-controller"
                                + " log\"\n  note: \"none (the API server has no log for it)\"");
        assertThat(files)
                .doesNotContainKey(
                        ROOT
                                + "namespaces/gpu-operator/pods/gpu-operator-abc/operator-controller.log");
        String encoded =
                Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));
        files.forEach(
                (name, text) ->
                        assertThat(text).as(name).doesNotContain(SECRET).doesNotContain(encoded));
        assertThat(
                        files.get(
                                ROOT
                                        + "namespaces/gpu-operator/pods/nvidia-driver-daemonset-x1/driver-agent.log"))
                .contains("token=<redacted: secret gpu-operator/pull key token>");
    }

    @Test
    void mustGatherIsASubcommandOfTheController() {
        StringWriter help = new StringWriter();
        CommandLine cl = ControllerMain.commandLine();
        cl.setOut(new PrintWriter(help));
        assertThat(cl.execute("must-gather", "--help")).isZero();
        assertThat(help.toString()).contains("--output=FILE").contains("--namespace");
    }

    static Map<String, String> read(Path file) throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new GZIPInputStream(Files.newInputStream(file)))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                out.put(e.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
