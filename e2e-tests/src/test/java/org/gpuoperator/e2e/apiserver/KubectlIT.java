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
    @Order(11)
    void typedCreateCommandsSendProtobufAndTheObjectsAreStoredAsSent() throws Exception {
        Path file = work.resolve("time-slicing.yaml");
        Files.writeString(file, "version: v1\nsharing:\n  timeSlicing:\n    resources: []\n");
        assertThat(
                        kubectl(
                                "create",
                                "configmap",
                                "time-slicing-config",
                                "--from-file=any=" + file,
                                "--from-literal=empty="))
                .isEqualTo("configmap/time-slicing-config created\n");
        // the kubeconfig's context namespace is default, as kind's
        assertThat(
                        client.configMaps()
                                .inNamespace("default")
                                .withName("time-slicing-config")
                                .get()
                                .getData())
                .isEqualTo(Map.of("any", Files.readString(file), "empty", ""));
        assertThat(
                        kubectl(
                                "create",
                                "secret",
                                "generic",
                                "licensing-config",
                                "-n",
                                NS,
                                "--from-literal=client_configuration_token.tok=abc"))
                .isEqualTo("secret/licensing-config created\n");
        io.fabric8.kubernetes.api.model.Secret secret =
                client.secrets().inNamespace(NS).withName("licensing-config").get();
        assertThat(secret.getType()).isEqualTo("Opaque");
        assertThat(secret.getData()).containsEntry("client_configuration_token.tok", "YWJj");
        assertThat(kubectl("create", "namespace", "other")).isEqualTo("namespace/other created\n");
        assertThat(client.namespaces().withName("other").get()).isNotNull();
        assertThat(kubectl("create", "serviceaccount", "runner"))
                .isEqualTo("serviceaccount/runner created\n");
        assertThat(
                        kubectl(
                                "create",
                                "deployment",
                                "web",
                                "--image=nginx:1.27",
                                "--replicas=2",
                                "--port=80"))
                .isEqualTo("deployment.apps/web created\n");
        io.fabric8.kubernetes.api.model.apps.Deployment web =
                client.apps().deployments().inNamespace("default").withName("web").get();
        assertThat(web.getSpec().getReplicas()).isEqualTo(2);
        assertThat(web.getSpec().getSelector().getMatchLabels()).isEqualTo(Map.of("app", "web"));
        assertThat(web.getSpec().getTemplate().getMetadata().getLabels())
                .isEqualTo(Map.of("app", "web"));
        assertThat(web.getSpec().getTemplate().getSpec().getContainers())
                .singleElement()
                .satisfies(
                        c -> {
                            assertThat(c.getName()).isEqualTo("nginx");
                            assertThat(c.getImage()).isEqualTo("nginx:1.27");
                            assertThat(c.getPorts().getFirst().getContainerPort()).isEqualTo(80);
                        });
        assertThat(kubectl("get", "deployment", "web"))
                .containsPattern("NAME\\s+READY\\s+UP-TO-DATE\\s+AVAILABLE\\s+AGE")
                .containsPattern("web\\s+0/2\\s+0\\s+0\\s+");
        assertThat(kubectl("get", "cm", "time-slicing-config"))
                .containsPattern("time-slicing-config\\s+2\\s+");
    }

    @Test
    @Order(12)
    void labelAndAnnotateWithOverwriteAndRemoval() throws Exception {
        assertThat(kubectl("label", "deployment", "web", "tier=a"))
                .isEqualTo("deployment.apps/web labeled\n");
        Result refused = run("label", "deployment", "web", "tier=b");
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err())
                .contains("'tier' already has a value (a), and --overwrite is false");
        assertThat(kubectl("label", "deployment", "web", "tier=b", "--overwrite"))
                .isEqualTo("deployment.apps/web labeled\n");
        assertThat(kubectl("annotate", "deployment", "web", "owner=team-gpu"))
                .isEqualTo("deployment.apps/web annotated\n");
        io.fabric8.kubernetes.api.model.ObjectMeta meta = web().getMetadata();
        assertThat(meta.getLabels()).containsEntry("tier", "b").containsEntry("app", "web");
        assertThat(meta.getAnnotations()).containsEntry("owner", "team-gpu");
        assertThat(kubectl("label", "deployment", "web", "tier-"))
                .isEqualTo("deployment.apps/web unlabeled\n");
        assertThat(kubectl("annotate", "deployment", "web", "owner-"))
                .isEqualTo("deployment.apps/web annotated\n");
        meta = web().getMetadata();
        assertThat(meta.getLabels()).doesNotContainKey("tier");
        assertThat(meta.getAnnotations() == null ? Map.of() : meta.getAnnotations())
                .doesNotContainKey("owner");
    }

    @Test
    @Order(13)
    void patchOfEachType() throws Exception {
        assertThat(
                        kubectl(
                                "patch",
                                "deployment",
                                "web",
                                "--type=json",
                                "-p",
                                "[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":3},"
                                        + "{\"op\":\"add\",\"path\":\"/spec/template/spec/containers/0/env\","
                                        + "\"value\":[{\"name\":\"MODE\",\"value\":\"a\"}]}]"))
                .isEqualTo("deployment.apps/web patched\n");
        assertThat(
                        kubectl(
                                "patch",
                                "deployment",
                                "web",
                                "--type=merge",
                                "-p",
                                "{\"spec\":{\"minReadySeconds\":5}}"))
                .isEqualTo("deployment.apps/web patched\n");
        // strategic: the container list merges by name, the env entry stays
        String image =
                "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx:1.28\"}]}}}}";
        assertThat(kubectl("patch", "deployment", "web", "--type=strategic", "-p", image))
                .isEqualTo("deployment.apps/web patched\n");
        assertThat(kubectl("patch", "deployment", "web", "-p", image))
                .isEqualTo("deployment.apps/web patched (no change)\n");
        io.fabric8.kubernetes.api.model.apps.Deployment d = web();
        assertThat(d.getSpec().getReplicas()).isEqualTo(3);
        assertThat(d.getSpec().getMinReadySeconds()).isEqualTo(5);
        io.fabric8.kubernetes.api.model.Container c =
                d.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo("nginx:1.28");
        assertThat(c.getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .containsExactly("MODE=a");
    }

    @Test
    @Order(14)
    void aJsonPatchThatDoesNotApplyIsRefusedAtOnceWithTheReason() throws Exception {
        String before = web().getMetadata().getResourceVersion();
        long start = System.nanoTime();
        Result r =
                run(
                        "patch",
                        "deployment",
                        "web",
                        "--type=json",
                        "-p",
                        "[{\"op\":\"replace\",\"path\":\"/spec/foo\",\"value\":1}]");
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
                .isLessThan(java.time.Duration.ofSeconds(10));
        assertThat(r.code()).isNotZero();
        assertThat(r.err())
                .contains("The request is invalid")
                .contains(
                        "replace operation does not apply: doc is missing key: /spec/foo: missing value");
        Result test =
                run(
                        "patch",
                        "deployment",
                        "web",
                        "--type=json",
                        "-p",
                        "[{\"op\":\"test\",\"path\":\"/spec/replicas\",\"value\":9}]");
        assertThat(test.err()).contains("testing value /spec/replicas failed: test failed");
        assertThat(web().getMetadata().getResourceVersion()).isEqualTo(before);
    }

    @Test
    @Order(15)
    void deleteByLabelSelector() throws Exception {
        for (String n : List.of("a", "b", "c")) {
            client.configMaps()
                    .inNamespace("default")
                    .resource(
                            new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                                    .withNewMetadata()
                                    .withName("sel-" + n)
                                    .addToLabels("batch", n.equals("c") ? "two" : "one")
                                    .endMetadata()
                                    .build())
                    .create();
        }
        assertThat(kubectl("delete", "configmap", "-l", "batch=one"))
                .contains("configmap \"sel-a\" deleted")
                .contains("configmap \"sel-b\" deleted")
                .doesNotContain("sel-c");
        assertThat(client.configMaps().inNamespace("default").withLabel("batch").list().getItems())
                .extracting(m -> m.getMetadata().getName())
                .containsExactly("sel-c");
    }

    @Test
    @Order(16)
    void eventsAreListedWithUpstreamsColumnsAndDescribedWithTheirObject() throws Exception {
        event(
                NS,
                "nvidia-device-plugin-x1.1",
                "Pod",
                "nvidia-device-plugin-x1",
                NS,
                podUid,
                "Warning",
                "StandInImage",
                "image device-plugin:1 is not on the node: runs the stand-in");
        event(
                NS,
                "other-pod.1",
                "Pod",
                "other-pod",
                NS,
                "uid-other",
                "Normal",
                "Started",
                "Started container x");
        // the kubelet records node events in default, with the node's name as uid
        event(
                "default",
                "gpu-node-1.1",
                "Node",
                "gpu-node-1",
                "",
                "gpu-node-1",
                "Normal",
                "NodeReady",
                "Node gpu-node-1 status is now: NodeReady");
        String events = kubectl("get", "events", "-n", NS);
        assertThat(events.lines().findFirst().orElseThrow())
                .matches("LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+MESSAGE");
        assertThat(events)
                .containsPattern(
                        "\\d+s\\s+Warning\\s+StandInImage\\s+pod/nvidia-device-plugin-x1\\s+image device-plugin:1 is not on the node: runs the stand-in")
                .containsPattern("Normal\\s+Started\\s+pod/other-pod\\s+Started container x");
        assertThat(
                        kubectl("get", "events", "-n", NS, "-o", "wide")
                                .lines()
                                .findFirst()
                                .orElseThrow())
                .matches(
                        "LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+SUBOBJECT\\s+SOURCE\\s+MESSAGE\\s+FIRST SEEN\\s+COUNT\\s+NAME");
        assertThat(kubectl("get", "events", "-A", "--field-selector", "type=Warning"))
                .contains("StandInImage")
                .doesNotContain("Started")
                .doesNotContain("NodeReady");
        String pod = kubectl("describe", "pod", "-n", NS, "nvidia-device-plugin-x1");
        assertThat(pod.substring(pod.indexOf("Events:")))
                .containsPattern(
                        "Warning\\s+StandInImage\\s+\\d+s\\s+kubelet\\s+image device-plugin:1")
                .doesNotContain("Started container x");
        String node = kubectl("describe", "node", "gpu-node-1");
        assertThat(node.substring(node.indexOf("Events:")))
                .containsPattern(
                        "Normal\\s+NodeReady\\s+\\d+s\\s+kubelet\\s+Node gpu-node-1 status is now: NodeReady")
                .doesNotContain("StandInImage");
        // the node's pods: describe node lists them by spec.nodeName, which the front filters
        assertThat(node).containsPattern("Non-terminated Pods:\\s+\\(1 in total\\)");
    }

    @Test
    @Order(17)
    void waitForAJsonPathAndAConditionTheStatusGetsLater() throws Exception {
        client.configMaps()
                .inNamespace("default")
                .resource(
                        new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("flag")
                                .endMetadata()
                                .addToData("state", "pending")
                                .build())
                .create();
        Pod waiting =
                client.pods()
                        .inNamespace("default")
                        .resource(
                                new PodBuilder()
                                        .withNewMetadata()
                                        .withName("waiter")
                                        .endMetadata()
                                        .withNewSpec()
                                        .addNewContainer()
                                        .withName("c")
                                        .withImage("busybox")
                                        .endContainer()
                                        .endSpec()
                                        .build())
                        .create();
        Thread later =
                Thread.ofVirtual()
                        .start(
                                () -> {
                                    try {
                                        Thread.sleep(2000);
                                        client.configMaps()
                                                .inNamespace("default")
                                                .withName("flag")
                                                .edit(
                                                        m -> {
                                                            m.getData().put("state", "done");
                                                            return m;
                                                        });
                                        waiting.setStatus(
                                                new io.fabric8.kubernetes.api.model
                                                                .PodStatusBuilder()
                                                        .withPhase("Running")
                                                        .addNewCondition()
                                                        .withType("Ready")
                                                        .withStatus("True")
                                                        .endCondition()
                                                        .build());
                                        client.pods()
                                                .inNamespace("default")
                                                .resource(waiting)
                                                .updateStatus();
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                });
        try {
            assertThat(
                            kubectl(
                                    "wait",
                                    "--for=jsonpath={.data.state}=done",
                                    "configmap/flag",
                                    "--timeout=30s"))
                    .isEqualTo("configmap/flag condition met\n");
            assertThat(kubectl("wait", "--for=condition=Ready", "pod/waiter", "--timeout=30s"))
                    .isEqualTo("pod/waiter condition met\n");
        } finally {
            later.join(10_000);
        }
    }

    @Test
    @Order(18)
    void rolloutStatusReadsTheDeploymentsStatus() throws Exception {
        io.fabric8.kubernetes.api.model.apps.Deployment d = web();
        d.setStatus(
                new io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder()
                        .withObservedGeneration(d.getMetadata().getGeneration())
                        .withReplicas(3)
                        .withUpdatedReplicas(3)
                        .withReadyReplicas(3)
                        .withAvailableReplicas(3)
                        .addNewCondition()
                        .withType("Available")
                        .withStatus("True")
                        .endCondition()
                        .build());
        client.apps().deployments().inNamespace("default").resource(d).updateStatus();
        assertThat(kubectl("rollout", "status", "deployment/web", "--timeout=20s"))
                .contains("deployment \"web\" successfully rolled out");
        assertThat(kubectl("wait", "--for=condition=available", "deployment/web", "--timeout=20s"))
                .isEqualTo("deployment.apps/web condition met\n");
        assertThat(kubectl("get", "deployment", "web")).containsPattern("web\\s+3/3\\s+3\\s+3\\s+");
    }

    @Test
    @Order(19)
    void scaleTokenDryRunAndServerSideApply() throws Exception {
        assertThat(kubectl("scale", "deployment", "web", "--replicas=1"))
                .isEqualTo("deployment.apps/web scaled\n");
        assertThat(web().getSpec().getReplicas()).isEqualTo(1);
        String token = kubectl("create", "token", "runner").strip();
        assertThat(ServiceAccountTokens.caller("Bearer " + token))
                .isEqualTo("system:serviceaccount:default:runner");
        assertThat(kubectl("create", "configmap", "dry", "--from-literal=a=1", "--dry-run=server"))
                .isEqualTo("configmap/dry created (server dry run)\n");
        assertThat(client.configMaps().inNamespace("default").withName("dry").get()).isNull();
        assertThat(kubectl("delete", "configmap", "time-slicing-config", "--dry-run=server"))
                .isEqualTo("configmap \"time-slicing-config\" deleted (server dry run)\n");
        assertThat(client.configMaps().inNamespace("default").withName("time-slicing-config").get())
                .isNotNull();
        Path cm = work.resolve("ssa.yaml");
        Files.writeString(
                cm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"1\"\n");
        assertThat(kubectl("apply", "--server-side", "-f", cm.toString()))
                .isEqualTo("configmap/ssa serverside-applied\n");
        Files.writeString(
                cm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"2\"\n");
        assertThat(kubectl("apply", "--server-side", "-f", cm.toString()))
                .isEqualTo("configmap/ssa serverside-applied\n");
        assertThat(client.configMaps().inNamespace("default").withName("ssa").get().getData())
                .isEqualTo(Map.of("a", "2"));
        Result missing = run("get", "deployment", "none");
        assertThat(missing.err())
                .isEqualTo("Error from server (NotFound): deployments.apps \"none\" not found\n");
    }

    @Test
    @Order(21)
    void aWatchOfOneObjectFromAVersionGetsWhatHappenedBeforeItOpened() throws Exception {
        // kubectl wait and delete --wait list the object, then watch it from the list's version:
        // a deletion in between must still reach the watch, as kube-apiserver replays it
        var cms = client.configMaps().inNamespace("default");
        Map<String, String> versions = new java.util.LinkedHashMap<>();
        for (String name : List.of("watched-gone", "watched-changed", "watched-same")) {
            var cm =
                    cms.resource(
                                    new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                                            .withNewMetadata()
                                            .withName(name)
                                            .endMetadata()
                                            .addToData("a", "1")
                                            .build())
                            .create();
            versions.put(name, cm.getMetadata().getResourceVersion());
        }
        cms.withName("watched-gone").delete();
        assertThat(cms.withName("watched-gone").get()).isNull();
        cms.withName("watched-changed")
                .edit(
                        c -> {
                            c.getData().put("a", "2");
                            return c;
                        });

        assertThat(watchFrom("watched-gone", versions.get("watched-gone")))
                .contains("\"type\":\"DELETED\"")
                .contains("\"kind\":\"ConfigMap\"")
                .contains("\"name\":\"watched-gone\"");
        // one still there: as it is now (the mock's ADDED, which kubectl wait reads as a change)
        assertThat(watchFrom("watched-changed", versions.get("watched-changed")))
                .contains("\"a\":\"2\"")
                .doesNotContain("DELETED");
        assertThat(watchFrom("watched-same", versions.get("watched-same")))
                .contains("\"name\":\"watched-same\"")
                .doesNotContain("DELETED");
    }

    /** An HTTP watch of one ConfigMap from {@code version}, for 2 s: what it received. */
    private static String watchFrom(String name, String version) throws Exception {
        return kubectl(
                "get",
                "--raw",
                "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=2"
                        + "&fieldSelector=metadata.name%3D"
                        + name
                        + "&resourceVersion="
                        + version);
    }

    private static io.fabric8.kubernetes.api.model.apps.Deployment web() {
        return client.apps().deployments().inNamespace("default").withName("web").get();
    }

    @Test
    @Order(20)
    void execStreamsTheOutputAndExitsWithTheCommandsCode() throws Exception {
        String pod = "nvidia-device-plugin-x1";
        Result refused = run("exec", "-n", NS, pod, "--", "true");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err())
                .contains(
                        "cannot exec in pod nvidia-device-plugin-x1 on node gpu-node-1: no node"
                                + " runs pod gpu-operator/nvidia-device-plugin-x1");
        // a node whose container is this machine: the protocol with the real kubectl
        api.podExec(
                (ref, container) -> {
                    if (!container.equals("plugin") || !ref.uid().equals(podUid)) {
                        throw new java.util.NoSuchElementException(
                                "container not found (\"" + container + "\")");
                    }
                    return command -> {
                        Path out = work.resolve("exec.out");
                        Path err = work.resolve("exec.err");
                        Process p =
                                new ProcessBuilder(command)
                                        .redirectOutput(out.toFile())
                                        .redirectError(err.toFile())
                                        .start();
                        try {
                            p.waitFor(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            throw new IOException(e);
                        }
                        return new PodExec.Result(
                                Files.readAllBytes(out), Files.readAllBytes(err), p.exitValue());
                    };
                });
        try {
            Result r =
                    run("exec", "-n", NS, pod, "--", "sh", "-c", "echo out; echo err >&2; exit 3");
            assertThat(r.code()).as(r.err()).isEqualTo(3);
            assertThat(r.out()).isEqualTo("out\n");
            assertThat(r.err()).startsWith("err\n").contains("command terminated with exit code 3");
            assertThat(kubectl("exec", "-n", NS, pod, "-c", "plugin", "--", "echo", "a b", "c"))
                    .isEqualTo("a b c\n");
            Result wrong = run("exec", "-n", NS, pod, "-c", "nope", "--", "true");
            assertThat(wrong.code()).isEqualTo(1);
            assertThat(wrong.err())
                    .contains("container nope is not valid for pod nvidia-device-plugin-x1");
            assertThat(api.calls())
                    .anySatisfy(
                            c -> {
                                assertThat(c.verb()).isEqualTo("create");
                                assertThat(c.resourcePath()).isEqualTo("pods/exec");
                                assertThat(c.name()).isEqualTo(pod);
                            });
        } finally {
            api.podExec(PodExec.NONE);
        }
    }

    private static void event(
            String ns,
            String name,
            String kind,
            String objName,
            String objNamespace,
            String uid,
            String type,
            String reason,
            String message) {
        String now = java.time.Instant.now().toString();
        client.v1()
                .events()
                .inNamespace(ns)
                .resource(
                        new io.fabric8.kubernetes.api.model.EventBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .endMetadata()
                                .withNewInvolvedObject()
                                .withKind(kind)
                                .withName(objName)
                                .withNamespace(objNamespace.isEmpty() ? null : objNamespace)
                                .withUid(uid)
                                .endInvolvedObject()
                                .withType(type)
                                .withReason(reason)
                                .withMessage(message)
                                .withNewSource()
                                .withComponent("kubelet")
                                .endSource()
                                .withFirstTimestamp(now)
                                .withLastTimestamp(now)
                                .withCount(1)
                                .build())
                .create();
    }

    record Result(int code, String out, String err) {}

    /** kubectl whatever its exit code. */
    private static Result run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("kubectl");
        Collections.addAll(cmd, args);
        Path errFile = work.resolve("kubectl-run.err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(errFile.toFile());
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl %s finished", cmd).isTrue();
        return new Result(p.exitValue(), out, Files.readString(errFile));
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
            // a simulated cluster's node bridge (another run's) is up but not this server's way in
            if (!ni.isUp() || ni.isLoopback() || ni.getName().startsWith("cni-")) {
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
