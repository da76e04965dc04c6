package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.cluster.ApiServer;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kubectl against the simulated API server over HTTPS (the kubeconfig's
 * certificate-authority-data), and a fabric8 client configured as a pod would be (gateway IP, CA
 * file, token).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KubectlIT {

    static final String NS = "gpu-operator";
    static final ResourceDefinitionContext CLUSTER_POLICIES =
            new ResourceDefinitionContext.Builder()
                    .withGroup("nvidia.com")
                    .withVersion("v1")
                    .withPlural("clusterpolicies")
                    .withKind("ClusterPolicy")
                    .withNamespaced(false)
                    .build();

    @TempDir static Path work;
    static Path repo;
    static ApiServer api;
    static KubernetesClient client;
    static String hostIp;
    static String podUid;
    static Path logDir;

    @BeforeAll
    static void start() throws Exception {
        assumeThat(onPath("kubectl"))
                .as("kubectl is not on PATH: skipping the kubectl tests")
                .isPresent();
        repo = RepoRoot.find();
        hostIp = nonLoopbackIpv4().orElse(null);
        api =
                ApiServer.start(
                        repo.resolve("deploy/crds"),
                        work,
                        NS,
                        ApiServer.Options.https(
                                "0.0.0.0", hostIp == null ? List.of() : List.of(hostIp)));
        client = api.client();
        for (String n : List.of("gpu-node-1", "cpu-node-1")) {
            client.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName(n)
                                    .addToLabels(
                                            "nvidia.com/gpu.present",
                                            n.startsWith("gpu") ? "true" : "false")
                                    .endMetadata()
                                    .withNewStatus()
                                    .addNewCondition()
                                    .withType("Ready")
                                    .withStatus("True")
                                    .endCondition()
                                    .addNewAddress()
                                    .withType("InternalIP")
                                    .withAddress(n.startsWith("gpu") ? "10.0.0.11" : "10.0.0.12")
                                    .endAddress()
                                    .withNewNodeInfo()
                                    .withKubeletVersion("v1.32.0")
                                    .withOsImage("Simulated Linux")
                                    .withKernelVersion("6.8.0-sim")
                                    .withContainerRuntimeVersion("containerd://2.0.0")
                                    .endNodeInfo()
                                    .endStatus()
                                    .build())
                    .create();
        }
        Pod pod =
                client.pods()
                        .inNamespace(NS)
                        .resource(
                                new PodBuilder()
                                        .withNewMetadata()
                                        .withName("nvidia-device-plugin-x1")
                                        .endMetadata()
                                        .withNewSpec()
                                        .withNodeName("gpu-node-1")
                                        .addNewContainer()
                                        .withName("plugin")
                                        .withImage("device-plugin:1")
                                        .endContainer()
                                        .endSpec()
                                        .build())
                        .create();
        podUid = pod.getMetadata().getUid();
        pod.setStatus(
                new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                        .withPhase("Running")
                        .withPodIP("10.88.1.5")
                        .addNewContainerStatus()
                        .withName("plugin")
                        .withReady(true)
                        .withRestartCount(1)
                        .endContainerStatus()
                        .build());
        client.pods().inNamespace(NS).resource(pod).updateStatus();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .resource(
                        new DaemonSetBuilder()
                                .withNewMetadata()
                                .withName("nvidia-device-plugin-daemonset")
                                .endMetadata()
                                .withNewSpec()
                                .withNewSelector()
                                .addToMatchLabels("app", "dp")
                                .endSelector()
                                .withNewTemplate()
                                .withNewMetadata()
                                .addToLabels("app", "dp")
                                .endMetadata()
                                .withNewSpec()
                                .addToNodeSelector("nvidia.com/gpu.deploy.device-plugin", "true")
                                .addNewContainer()
                                .withName("plugin")
                                .withImage("device-plugin:1")
                                .endContainer()
                                .endSpec()
                                .endTemplate()
                                .endSpec()
                                .withNewStatus()
                                .withDesiredNumberScheduled(1)
                                .withCurrentNumberScheduled(1)
                                .withNumberReady(1)
                                .withUpdatedNumberScheduled(1)
                                .withNumberAvailable(1)
                                .withNumberMisscheduled(0)
                                .endStatus()
                                .build())
                .create();
        GenericKubernetesResource ready =
                client.genericKubernetesResources(CLUSTER_POLICIES)
                        .resource(
                                new GenericKubernetesResourceBuilder()
                                        .withApiVersion("nvidia.com/v1")
                                        .withKind("ClusterPolicy")
                                        .withNewMetadata()
                                        .withName("ready-policy")
                                        .endMetadata()
                                        .addToAdditionalProperties("spec", Map.of())
                                        .build())
                        .create();
        ready.setAdditionalProperty("status", Map.of("state", "ready"));
        client.genericKubernetesResources(CLUSTER_POLICIES).resource(ready).updateStatus();

        Path nodeRoot = work.resolve("gpu-node-1-root");
        logDir =
                FilePodLogSource.containerDir(
                        nodeRoot,
                        new PodLogSource.PodRef(
                                NS, "nvidia-device-plugin-x1", podUid, "gpu-node-1"),
                        "plugin");
        Files.createDirectories(logDir);
        Files.writeString(
                logDir.resolve("0.log"), "2026-12-01T10:00:00.000000001Z stdout F first run\n");
        Files.writeString(
                logDir.resolve("1.log"),
                """
                2026-12-01T10:00:05.123456789Z stdout F registered with kubelet
                2026-12-01T10:00:06.000000000Z stderr P advertising 8\s
                2026-12-01T10:00:06.000000000Z stderr F devices
                """);
        api.podLogSource(
                new FilePodLogSource(
                        n -> n.equals("gpu-node-1") ? Optional.of(nodeRoot) : Optional.empty()));
    }

    @AfterAll
    static void stop() {
        if (api != null) {
            api.close();
        }
    }

    @Test
    @Order(1)
    void getNodesShowsStatusRolesAgeVersion() throws Exception {
        String out = kubectl("get", "nodes");
        assertThat(out.lines().findFirst().orElseThrow())
                .matches("NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION");
        assertThat(out)
                .containsPattern("gpu-node-1\\s+Ready\\s+<none>\\s+\\d+s\\s+v1.32.0")
                .containsPattern("cpu-node-1\\s+Ready");
    }

    @Test
    @Order(2)
    void wideAndLabelColumns() throws Exception {
        String wide = kubectl("get", "nodes", "-o", "wide");
        assertThat(wide.lines().findFirst().orElseThrow())
                .containsPattern(
                        "INTERNAL-IP\\s+EXTERNAL-IP\\s+OS-IMAGE\\s+KERNEL-VERSION\\s+CONTAINER-RUNTIME");
        assertThat(wide)
                .containsPattern(
                        "gpu-node-1 .*10\\.0\\.0\\.11\\s+<none>\\s+Simulated Linux\\s+6\\.8\\.0-sim\\s+containerd://2\\.0\\.0");
        String labels = kubectl("get", "nodes", "-L", "nvidia.com/gpu.present");
        assertThat(labels.lines().findFirst().orElseThrow()).endsWith("GPU.PRESENT");
        assertThat(labels)
                .containsPattern("gpu-node-1 .*true\\s*\\n")
                .containsPattern("cpu-node-1 .*false");
    }

    @Test
    @Order(3)
    void podsDaemonSetsAndClusterPolicyStatus() throws Exception {
        assertThat(kubectl("get", "pods", "-A"))
                .containsPattern("NAMESPACE\\s+NAME\\s+READY\\s+STATUS\\s+RESTARTS\\s+AGE")
                .containsPattern(
                        "gpu-operator\\s+nvidia-device-plugin-x1\\s+1/1\\s+Running\\s+1\\s+");
        assertThat(kubectl("get", "pods", "-n", NS, "-o", "wide"))
                .containsPattern("10\\.88\\.1\\.5\\s+gpu-node-1");
        assertThat(kubectl("get", "ds", "-n", NS))
                .containsPattern(
                        "NAME\\s+DESIRED\\s+CURRENT\\s+READY\\s+UP-TO-DATE\\s+AVAILABLE\\s+NODE SELECTOR\\s+AGE")
                .containsPattern(
                        "nvidia-device-plugin-daemonset\\s+1\\s+1\\s+1\\s+1\\s+1\\s+nvidia.com/gpu.deploy.device-plugin=true");
        String cp = kubectl("get", "clusterpolicy");
        assertThat(cp.lines().findFirst().orElseThrow()).matches("NAME\\s+AGE\\s+STATUS");
        assertThat(cp).containsPattern("ready-policy\\s+\\d+s\\s+ready");
    }

    @Test
    @Order(4)
    void describeAndLabelNode() throws Exception {
        String d = kubectl("describe", "node", "gpu-node-1");
        assertThat(d)
                .containsPattern("Name:\\s+gpu-node-1")
                .contains("nvidia.com/gpu.present=true")
                .containsPattern("Events:\\s+<none>");
        assertThat(kubectl("describe", "pod", "-n", NS, "nvidia-device-plugin-x1"))
                .containsPattern("Node:\\s+gpu-node-1");
        assertThat(kubectl("label", "node", "cpu-node-1", "foo=bar"))
                .contains("node/cpu-node-1 labeled");
        assertThat(client.nodes().withName("cpu-node-1").get().getMetadata().getLabels())
                .containsEntry("foo", "bar");
    }

    @Test
    @Order(5)
    void applyTwiceThenDelete() throws Exception {
        String sample = repo.resolve("deploy/samples/clusterpolicy-simulated.yaml").toString();
        assertThat(kubectl("apply", "-f", sample)).contains("created");
        GenericKubernetesResource applied =
                client.genericKubernetesResources(CLUSTER_POLICIES)
                        .withName("cluster-policy")
                        .get();
        assertThat(applied.getMetadata().getAnnotations())
                .containsKey("kubectl.kubernetes.io/last-applied-configuration");
        assertThat(kubectl("apply", "-f", sample)).contains("unchanged");
        assertThat(kubectl("delete", "clusterpolicy", "cluster-policy")).contains("deleted");
        assertThat(
                        client.genericKubernetesResources(CLUSTER_POLICIES)
                                .withName("cluster-policy")
                                .get())
                .isNull();
    }

    @Test
    @Order(6)
    void applyOfABuiltinSendsAStrategicMergePatch() throws Exception {
        Path cm = work.resolve("cm.yaml");
        Files.writeString(
                cm,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: gpu-operator\n"
                        + "data:\n  a: \"1\"\n  b: \"1\"\n");
        assertThat(kubectl("apply", "-f", cm.toString())).contains("created");
        Files.writeString(
                cm,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: gpu-operator\n"
                        + "data:\n  a: \"2\"\n");
        assertThat(kubectl("apply", "-f", cm.toString())).contains("configured");
        assertThat(client.configMaps().inNamespace(NS).withName("settings").get().getData())
                .isEqualTo(Map.of("a", "2"));
    }

    @Test
    @Order(7)
    void logsOfAPod() throws Exception {
        assertThat(kubectl("logs", "-n", NS, "nvidia-device-plugin-x1"))
                .isEqualTo("registered with kubelet\nadvertising 8 devices\n");
        assertThat(kubectl("logs", "-n", NS, "nvidia-device-plugin-x1", "--tail=1"))
                .isEqualTo("advertising 8 devices\n");
        assertThat(kubectl("logs", "-n", NS, "nvidia-device-plugin-x1", "-p"))
                .isEqualTo("first run\n");
    }

    @Test
    @Order(8)
    void followedLogsShowLinesWrittenLater() throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder("kubectl", "logs", "-f", "-n", NS, "nvidia-device-plugin-x1")
                        .redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            java.util.concurrent.ExecutorService reader =
                    java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
            assertThat(reader.submit(r::readLine).get(30, TimeUnit.SECONDS))
                    .isEqualTo("registered with kubelet");
            assertThat(reader.submit(r::readLine).get(30, TimeUnit.SECONDS))
                    .isEqualTo("advertising 8 devices");
            Files.writeString(
                    logDir.resolve("1.log"),
                    "2026-12-01T10:01:00.000000000Z stdout F a later line\n",
                    java.nio.file.StandardOpenOption.APPEND);
            assertThat(reader.submit(r::readLine).get(30, TimeUnit.SECONDS))
                    .isEqualTo("a later line");
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    @Order(9)
    void watchReceivesAnEvent() throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder("kubectl", "get", "nodes", "-w").redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CountDownLatch listed = new CountDownLatch(3); // header and two nodes
        CountDownLatch event = new CountDownLatch(1);
        Thread reader =
                Thread.ofVirtual()
                        .start(
                                () -> {
                                    try (BufferedReader r =
                                            new BufferedReader(
                                                    new InputStreamReader(
                                                            p.getInputStream(),
                                                            StandardCharsets.UTF_8))) {
                                        for (String l; (l = r.readLine()) != null; ) {
                                            lines.add(l);
                                            if (listed.getCount() == 0
                                                    && l.startsWith("cpu-node-1")) {
                                                event.countDown();
                                            }
                                            listed.countDown();
                                        }
                                    } catch (IOException e) {
                                        // process killed
                                    }
                                });
        try {
            assertThat(listed.await(30, TimeUnit.SECONDS))
                    .as("initial listing: %s", lines)
                    .isTrue();
            // after the listing, any change of cpu-node-1 must arrive as a watch event with a table
            // row
            for (int i = 0; i < 20 && event.getCount() > 0; i++) {
                client.nodes()
                        .withName("cpu-node-1")
                        .edit(
                                n ->
                                        new NodeBuilder(n)
                                                .editMetadata()
                                                .addToLabels(
                                                        "watched",
                                                        String.valueOf(System.nanoTime()))
                                                .endMetadata()
                                                .build());
                event.await(1, TimeUnit.SECONDS);
            }
            assertThat(event.getCount())
                    .as("a watch event line after the listing: %s", lines)
                    .isZero();
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
            reader.join(5000);
        }
        assertThat(lines.getFirst()).matches("NAME\\s+STATUS\\s+ROLES\\s+AGE\\s+VERSION");
    }

    @Test
    @Order(10)
    void aClientConfiguredLikeAPodListsAndWatchesOverTls() throws Exception {
        assumeThat(hostIp)
                .as("no non-loopback IPv4 address to reach the server as a pod would")
                .isNotNull();
        Path ca = work.resolve("ca.crt");
        Files.writeString(ca, api.caCertificatePem());
        Config config =
                new ConfigBuilder(Config.empty())
                        .withMasterUrl("https://" + hostIp + ":" + api.port())
                        .withCaCertFile(ca.toString())
                        .withOauthToken(api.serviceAccountToken())
                        .withNamespace(NS)
                        .build();
        try (KubernetesClient pod = new KubernetesClientBuilder().withConfig(config).build()) {
            assertThat(pod.nodes().list().getItems())
                    .extracting(n -> n.getMetadata().getName())
                    .contains("gpu-node-1", "cpu-node-1");
            CountDownLatch modified = new CountDownLatch(1);
            try (Watch w =
                    pod.nodes()
                            .withName("gpu-node-1")
                            .watch(
                                    new Watcher<>() {
                                        @Override
                                        public void eventReceived(Action action, Node node) {
                                            String seen =
                                                    node.getMetadata()
                                                            .getLabels()
                                                            .get("seen-by-pod");
                                            if (action == Action.MODIFIED
                                                    && seen != null
                                                    && seen.startsWith("yes")) {
                                                modified.countDown();
                                            }
                                        }

                                        @Override
                                        public void onClose(WatcherException cause) {}
                                    })) {
                // the watch may be registered behind the front a moment after watch() returns: a
                // change made before that is not an event, so change the node until one arrives
                boolean seen = false;
                for (int i = 0; i < 20 && !seen; i++) {
                    String value = "yes-" + i;
                    client.nodes()
                            .withName("gpu-node-1")
                            .edit(
                                    n ->
                                            new NodeBuilder(n)
                                                    .editMetadata()
                                                    .addToLabels("seen-by-pod", value)
                                                    .endMetadata()
                                                    .build());
                    seen = modified.await(1, TimeUnit.SECONDS);
                }
                assertThat(seen).as("watch event through the TLS front").isTrue();
            }
        }
    }

    @Test
    @Order(6)
    void typedCreateCommandsFailFastNamingTheWayAround() throws Exception {
        // kubectl create namespace sends protobuf, which the mock cannot read: a clear error, not a
        // hang
        ProcessBuilder pb =
                new ProcessBuilder("kubectl", "create", "namespace", "other")
                        .redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isNotZero();
        assertThat(out).contains("JSON bodies only").contains("apply -f");
    }

    private static String kubectl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("kubectl");
        Collections.addAll(cmd, args);
        ProcessBuilder pb =
                new ProcessBuilder(cmd).redirectError(work.resolve("kubectl.err").toFile());
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl %s finished", cmd).isTrue();
        String err = Files.readString(work.resolve("kubectl.err"));
        assertThat(p.exitValue()).as("kubectl %s: %s%s", args, out, err).isZero();
        return out;
    }

    private static Optional<Path> onPath(String exe) {
        for (String dir :
                System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, exe);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> nonLoopbackIpv4() throws IOException {
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address) {
                    return Optional.of(a.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }
}
