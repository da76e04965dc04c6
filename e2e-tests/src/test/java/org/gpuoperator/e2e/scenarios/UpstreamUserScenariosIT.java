package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 24: what an upstream user brings works unchanged on the simulated cluster, driven with
 * kubectl only. Upstream's chart-rendered default ClusterPolicy with only {@code simulation} added
 * reaches ready (NVIDIA's images replaced by ours, the status says which); the operand DaemonSets
 * are selected by upstream's {@code app} labels; a JSON patch reaches a DaemonSet within 10 s;
 * NVIDIA's documented vectorAdd pod passes; the controller runs as the pod of its Deployment and a
 * deleted one is replaced without an operand restart; a driver version change upgrades and a
 * rollback rolls back (images pulled from the simulated registry, no pre-loading); an image nobody
 * serves shows {@code ImagePullBackOff} and the status names it; {@code operator-controller
 * must-gather} archives each item issue 26 lists and no Secret data.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpstreamUserScenariosIT {

    private static final String NS = SimulatedCluster.NAMESPACE;
    private static final String NODE = "gpu-node-1";
    private static final String POLICY = "cluster-policy";
    private static final Duration CONVERGE = Duration.ofMinutes(4);
    private static final Duration ROLLOUT = Duration.ofMinutes(6);

    /** The chart's driver version (deploy/samples/upstream/clusterpolicy-chart-default.yaml). */
    private static final String CHART_DRIVER = "595.91.07";

    private static final String NEW_DRIVER = "580.95.05";

    /** The controller's leader-election Lease (operator-controller's ControllerRuntime). */
    private static final String LEASE = "53822513.nvidia.com";

    /** A Lease's renew time as the API server writes it (MicroTime: RFC 3339 with microseconds). */
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX");

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Scenarios.start(events);
        org.junit.jupiter.api.Assumptions.assumeTrue(
                cluster.podsAsContainers(), "an upstream user's path needs pods as containers");
        client = cluster.client();
        cluster.addGpuNode(NODE);
        // as an admin installs it: the operator's Deployment, its pod on the control-plane node
        cluster.installOperator();
    }

    @BeforeEach
    void announce(TestInfo info) {
        Scenarios.announce(info);
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 120);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void upstreamsChartDefaultPolicyWithOnlySimulationAddedReachesReady() throws Exception {
        // the operator's own pod: its Deployment Available, on the control-plane node, our image
        kubectlTimed(
                200,
                "wait",
                "-n",
                NS,
                "--for=condition=available",
                "deployment/gpu-operator",
                "--timeout=180s");
        Pod operator = controllerPod();
        assertThat(operator.getSpec().getNodeName()).isEqualTo(SimulatedCluster.CONTROL_PLANE_NODE);
        assertThat(operator.getSpec().getContainers().getFirst().getImage())
                .startsWith("ghcr.io/gpu-operator-java/operator-controller:");

        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.UPSTREAM_CHART_POLICY);
        Map<String, Object> spec = Scenarios.spec(cp);
        Map<String, Object> simulation = new LinkedHashMap<>();
        simulation.put("enabled", true);
        simulation.put("profile", "h100-80gb-x8");
        simulation.put("nodeLabel", SimulatedCluster.SIMULATED_LABEL);
        spec.put("simulation", simulation);
        Path file = cluster.workDir().resolve("chart-default-simulated.yaml");
        Files.writeString(file, Serialization.asYaml(cp));

        assertThat(kubectl("apply", "-f", file.toString())).contains("created");
        awaitPolicyReady(CONVERGE);

        // every operand runs this project's image; NVIDIA's are named in the status
        for (DaemonSet ds : client.apps().daemonSets().inNamespace(NS).list().getItems()) {
            String image = ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
            assertThat(image).as(ds.getMetadata().getName()).doesNotStartWith("nvcr.io/");
        }
        String warnings = kubectl("get", "clusterpolicy", POLICY, "-o", "jsonpath={.status}");
        assertThat(warnings)
                .contains("nvcr.io/nvidia/driver:" + CHART_DRIVER)
                .contains("nvcr.io/nvidia/k8s-device-plugin");
        assertThat(driverVersionLabel()).isEqualTo(CHART_DRIVER);
    }

    @Test
    @Order(2)
    void operandsAreSelectedByUpstreamsAppLabelsAndAJsonPatchReachesTheirDaemonSets()
            throws Exception {
        for (String ds :
                List.of(
                        "nvidia-driver-daemonset",
                        "nvidia-container-toolkit-daemonset",
                        "nvidia-device-plugin-daemonset",
                        "gpu-feature-discovery",
                        "nvidia-dcgm-exporter",
                        "nvidia-operator-validator")) {
            assertThat(kubectl("get", "ds", "-n", NS, "-l", "app=" + ds, "-o", "name").trim())
                    .isEqualTo("daemonset.apps/" + ds);
            assertThat(kubectl("get", "pods", "-n", NS, "-l", "app=" + ds, "-o", "name"))
                    .as("pods of " + ds)
                    .contains("pod/" + ds);
        }
        assertThat(
                        kubectl(
                                "get",
                                "pods",
                                "-n",
                                NS,
                                "-l",
                                "app.kubernetes.io/component=nvidia-driver",
                                "-o",
                                "name"))
                .contains("pod/nvidia-driver-daemonset");

        // upstream's scripts: a JSON-patch replace of a device-plugin env, and of mig.strategy
        // (the chart sets no device-plugin env: the first patch adds one, as such scripts do)
        patchPolicy(
                "json",
                "[{\"op\":\"add\",\"path\":\"/spec/devicePlugin/env\",\"value\":"
                        + "[{\"name\":\"DEVICE_ID_STRATEGY\",\"value\":\"uuid\"}]}]");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () ->
                                assertThat(dsEnv("nvidia-device-plugin-daemonset"))
                                        .containsEntry("DEVICE_ID_STRATEGY", "uuid"));
        patchPolicy(
                "json",
                "[{\"op\":\"replace\",\"path\":\"/spec/devicePlugin/env/0/value\","
                        + "\"value\":\"index\"}]");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () ->
                                assertThat(dsEnv("nvidia-device-plugin-daemonset"))
                                        .containsEntry("DEVICE_ID_STRATEGY", "index"));
        patchPolicy(
                "json",
                "[{\"op\":\"replace\",\"path\":\"/spec/mig/strategy\",\"value\":\"mixed\"}]");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () ->
                                assertThat(dsEnv("gpu-feature-discovery"))
                                        .containsEntry("MIG_STRATEGY", "mixed"));

        // a patch that does not apply is refused at once with the reason
        long start = System.nanoTime();
        String refused =
                kubectlFails(
                        "patch",
                        "clusterpolicy",
                        POLICY,
                        "--type=json",
                        "-p",
                        "[{\"op\":\"replace\",\"path\":\"/spec/noSuchSection/x\",\"value\":1}]");
        assertThat(refused).contains("replace operation does not apply");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

        // back as the chart had it
        patchPolicy(
                "json",
                "[{\"op\":\"remove\",\"path\":\"/spec/devicePlugin/env\"},"
                        + "{\"op\":\"replace\",\"path\":\"/spec/mig/strategy\",\"value\":\"single\"}]");
        // the DaemonSets changed back before their rollouts are awaited (else the wait may see the
        // rollout before this change as done, and the next pod meets a device plugin being
        // replaced: UnexpectedAdmissionError)
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(dsEnv("nvidia-device-plugin-daemonset"))
                                    .doesNotContainKey("DEVICE_ID_STRATEGY");
                            assertThat(dsEnv("gpu-feature-discovery"))
                                    .containsEntry("MIG_STRATEGY", "single");
                        });
        awaitPolicyReady(CONVERGE);
    }

    @Test
    @Order(3)
    void nvidiasDocumentedVectorAddPodPassesUnchanged() throws Exception {
        // NVIDIA's "Running Sample GPU Applications" manifest, unchanged: no RuntimeClass. The
        // nodes' containerd is 1.6, whose CRI drops CDI devices, so the toolkit made nvidia the
        // default runtime and the allocated GPU reaches the container through the annotations
        String manifest =
                """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                spec:
                  restartPolicy: OnFailure
                  containers:
                  - name: cuda-vectoradd
                    image: "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04"
                %s
                """;
        Path unchanged = cluster.workDir().resolve("cuda-vectoradd.yaml");
        Files.writeString(
                unchanged,
                manifest.formatted(
                        "cuda-vectoradd",
                        """
                            resources:
                              limits:
                                nvidia.com/gpu: 1\
                        """));
        kubectl("apply", "-f", unchanged.toString());
        explainingPod(
                "cuda-vectoradd",
                () ->
                        kubectlTimed(
                                150,
                                "wait",
                                "--for=jsonpath={.status.phase}=Succeeded",
                                "pod/cuda-vectoradd",
                                "--timeout=120s"));
        assertThat(kubectl("logs", "cuda-vectoradd"))
                .contains("[Vector addition of 50000 elements]")
                .contains("Test PASSED");
        // the scheduler's and the kubelet's Events, as a real cluster's describe lists them
        assertThat(kubectl("describe", "pod", "cuda-vectoradd"))
                .containsPattern(
                        "Normal +Scheduled .*default-scheduler +Successfully assigned"
                                + " default/cuda-vectoradd to gpu-node-")
                .containsPattern("Normal +Created .*kubelet.* Created container: cuda-vectoradd")
                .containsPattern("Normal +Started .*kubelet.* Started container cuda-vectoradd");
        kubectl("delete", "-f", unchanged.toString(), "--wait=false");

        // the default runtime gives nothing that was not allocated: no GPU asked, none seen
        Path noGpu = cluster.workDir().resolve("cuda-vectoradd-no-gpu.yaml");
        Files.writeString(noGpu, manifest.formatted("cuda-vectoradd-no-gpu", ""));
        kubectl("apply", "-f", noGpu.toString());
        explainingPod(
                "cuda-vectoradd-no-gpu",
                () ->
                        await().atMost(Duration.ofSeconds(90))
                                .pollInterval(Duration.ofMillis(500))
                                .ignoreExceptions()
                                .untilAsserted(
                                        () ->
                                                assertThat(kubectl("logs", "cuda-vectoradd-no-gpu"))
                                                        .contains(
                                                                "error code no CUDA-capable device"
                                                                        + " is detected")));
        kubectl("delete", "-f", noGpu.toString(), "--wait=false");

        // a user's habit: a long-running CUDA pod, then kubectl exec nvidia-smi in it
        Path shell = cluster.workDir().resolve("cuda-shell.yaml");
        Files.writeString(
                shell,
                """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: cuda-shell
                spec:
                  containers:
                  - name: cuda
                    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
                    command: ["sleep", "3600"]
                    resources:
                      limits:
                        nvidia.com/gpu: 1
                """);
        kubectl("apply", "-f", shell.toString());
        explainingPod(
                "cuda-shell",
                () ->
                        kubectlTimed(
                                100,
                                "wait",
                                "--for=condition=Ready",
                                "pod/cuda-shell",
                                "--timeout=90s"));
        assertThat(kubectl("exec", "cuda-shell", "--", "nvidia-smi", "-L").lines())
                .as("the one allocated GPU")
                .singleElement()
                .asString()
                .startsWith("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-");
        assertThat(kubectlFails("exec", "cuda-shell", "--", "sh", "-c", "exit 3"))
                .contains("command terminated with exit code 3");
        kubectl("delete", "-f", shell.toString(), "--wait=false");
    }

    @Test
    @Order(4)
    void theControllersPodDeletedIsReplacedAndNoOperandRestarts() throws Exception {
        Pod old = controllerPod();
        assertThat(leader()).isEqualTo(old.getMetadata().getName());
        Map<String, String> before = operandPods();
        kubectl("delete", "pod", "-n", NS, old.getMetadata().getName());
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Pod now = controllerPod();
                            assertThat(now.getMetadata().getUid())
                                    .isNotEqualTo(old.getMetadata().getUid());
                            assertThat(Pods.isReady(now)).as("the new pod is ready").isTrue();
                            assertThat(leader())
                                    .as("the new pod holds the Lease")
                                    .isEqualTo(now.getMetadata().getName());
                        });
        theLeaderActs("5000");
        // the exporter's pod rolled for its own change; no other operand pod was replaced or
        // restarted
        Map<String, String> after = operandPods();
        before.keySet().removeIf(k -> k.startsWith("nvidia-dcgm-exporter"));
        after.keySet().removeIf(k -> k.startsWith("nvidia-dcgm-exporter"));
        assertThat(after).isEqualTo(before);
    }

    @Test
    @Order(5)
    void aLeaseTakenOverFailsTheControllersLivenessAndItLeadsAgainAfterItsRestart()
            throws Exception {
        Pod pod = controllerPod();
        String name = pod.getMetadata().getName();
        assertThat(leader()).isEqualTo(name);
        int restarts = Scenarios.restarts(pod);
        // another holder renews the Lease once, as a second operator would after a partition: a
        // merge patch, which carries no version, so the operator's own renewals cannot make it a
        // 409 (an edit carried the version it read, and met one in a clean-clone run)
        client.leases()
                .inNamespace(NS)
                .withName(LEASE)
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"holderIdentity\":\"another-operator\",\"renewTime\":\""
                                + MICRO_TIME.format(ZonedDateTime.now(ZoneOffset.UTC))
                                + "\"}}");
        // the operator cannot renew: it stops leading, its /healthz fails, the kubelet restarts
        // its container, which leads again once the other holder's lease has run out
        await().atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofSeconds(1))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Pod now = controllerPod();
                            assertThat(now.getMetadata().getUid())
                                    .isEqualTo(pod.getMetadata().getUid());
                            assertThat(Scenarios.restarts(now)).isGreaterThan(restarts);
                            assertThat(Pods.isReady(now)).isTrue();
                            assertThat(leader()).isEqualTo(name);
                        });
        assertThat(
                        client.v1().events().inNamespace(NS).list().getItems().stream()
                                .filter(e -> name.equals(e.getInvolvedObject().getName()))
                                .map(e -> e.getReason() + ": " + e.getMessage()))
                .as("the kubelet's Event, as kubectl describe pod lists it")
                .contains(
                        "Killing: Container operator-controller failed liveness probe, will be"
                                + " restarted");
        theLeaderActs("10000");
    }

    /**
     * The operator leading now acts: a policy change (the exporter's interval) reaches its
     * DaemonSet, and the policy is ready again.
     */
    private static void theLeaderActs(String intervalMs) throws Exception {
        patchPolicy(
                "merge",
                "{\"spec\":{\"dcgmExporter\":{\"env\":"
                        + "[{\"name\":\"DCGM_EXPORTER_INTERVAL\",\"value\":\""
                        + intervalMs
                        + "\"}]}}}");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(dsEnv("nvidia-dcgm-exporter"))
                                        .containsEntry("DCGM_EXPORTER_INTERVAL", intervalMs));
        awaitPolicyReady(CONVERGE);
    }

    @Test
    @Order(6)
    void aDriverVersionChangeUpgradesEveryNodeAndARollbackRollsBack() throws Exception {
        for (String version : List.of(NEW_DRIVER, CHART_DRIVER)) {
            patchPolicy("merge", "{\"spec\":{\"driver\":{\"version\":\"" + version + "\"}}}");
            await().atMost(ROLLOUT)
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(
                            () -> {
                                assertThat(nodeLabel("nvidia.com/gpu-driver-upgrade-state"))
                                        .isEqualTo("upgrade-done");
                                assertThat(driverVersionLabel()).isEqualTo(version);
                            });
            awaitPolicyReady(CONVERGE);
        }
    }

    @Test
    @Order(7)
    void aDriverImageNobodyServesShowsImagePullBackOffAndTheStatusNamesIt() throws Exception {
        String missing = "registry.example.com/nvidia";
        patchPolicy("merge", "{\"spec\":{\"driver\":{\"repository\":\"" + missing + "\"}}}");
        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            Pod driver = driverPod();
                            assertThat(driver).isNotNull();
                            assertThat(waitingReason(driver)).isEqualTo("ImagePullBackOff");
                            String status =
                                    kubectl(
                                            "get",
                                            "clusterpolicy",
                                            POLICY,
                                            "-o",
                                            "jsonpath={.status}");
                            assertThat(status)
                                    .contains(driver.getMetadata().getName())
                                    .contains(NODE)
                                    .contains(missing + "/driver");
                        });
        patchPolicy("merge", "{\"spec\":{\"driver\":{\"repository\":\"nvcr.io/nvidia\"}}}");
        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () ->
                                assertThat(nodeLabel("nvidia.com/gpu-driver-upgrade-state"))
                                        .isEqualTo("upgrade-done"));
        awaitPolicyReady(CONVERGE);
    }

    @Test
    @Order(8)
    void mustGatherArchivesEachListedItemAndNoSecretData() throws Exception {
        // a Secret whose value reaches a pod's env and its log, and an NVIDIADriver to collect
        String value = "must-gather-secret-" + java.util.UUID.randomUUID();
        client.secrets()
                .inNamespace(NS)
                .resource(
                        new io.fabric8.kubernetes.api.model.SecretBuilder()
                                .withNewMetadata()
                                .withName("support-credentials")
                                .endMetadata()
                                .addToStringData("token", value)
                                .build())
                .create();
        Path manifests = cluster.workDir().resolve("must-gather-objects.yaml");
        Files.writeString(
                manifests,
                """
                apiVersion: nvidia.com/v1alpha1
                kind: NVIDIADriver
                metadata: {name: must-gather-probe}
                spec:
                  driverType: gpu
                  nodeSelector: {must-gather: probe}
                ---
                apiVersion: v1
                kind: Pod
                metadata: {name: secret-echo, namespace: %s}
                spec:
                  containers:
                    - name: echo
                      image: busybox
                      # the first run exits, so the second has a previous container's log
                      command:
                        - sh
                        - -c
                        - echo token=$TOKEN; [ -f /state/ran ] || { touch /state/ran; exit 1; }; sleep 3600
                      env:
                        - name: TOKEN
                          valueFrom: {secretKeyRef: {name: support-credentials, key: token}}
                      volumeMounts: [{name: state, mountPath: /state}]
                  volumes: [{name: state, emptyDir: {}}]
                """
                        .formatted(NS));
        kubectl("apply", "-f", manifests.toString());
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(kubectl("logs", "-n", NS, "secret-echo", "--previous"))
                                    .contains("token=" + value);
                            assertThat(kubectl("logs", "-n", NS, "secret-echo"))
                                    .contains("token=" + value);
                        });

        List<Pod> operands =
                cluster.operandPodsOn(NODE).stream()
                        .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
                        .toList();
        Path archive = cluster.workDir().resolve("support/bundle.tar.gz");
        Path repo = RepoRoot.find();
        ProcessBuilder pb =
                new ProcessBuilder(
                                repo.resolve("bin/java25").toString(),
                                "-jar",
                                repo.resolve("operator-controller/target/operator-controller.jar")
                                        .toString(),
                                "must-gather",
                                "--output",
                                archive.toString())
                        .redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", cluster.api().kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(out).isTrue();
        System.out.println(out);
        assertThat(p.exitValue()).as(out).isZero();

        Map<String, String> files = new TreeMap<>();
        try (var tar =
                new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                        new java.util.zip.GZIPInputStream(Files.newInputStream(archive)))) {
            org.apache.commons.compress.archivers.tar.TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                String name = e.getName();
                files.put(
                        name.substring(name.indexOf('/') + 1),
                        new String(tar.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        String index = files.get("index.yaml");
        assertThat(index).as("index.yaml in " + files.keySet()).isNotNull();
        assertThat(index).as(index).contains("errors: 0");

        // the policy and its status, the NVIDIADriver, the GPU node
        assertThat(files.get("cluster/clusterpolicies/" + POLICY + ".yaml"))
                .contains("state: \"ready\"");
        assertThat(files).containsKey("cluster/nvidiadrivers/must-gather-probe.yaml");
        assertThat(files.get("cluster/nodes/" + NODE + ".yaml"))
                .contains("nvidia.com/gpu.present: \"true\"")
                .contains("type: \"GPUStackReady\"")
                .contains("nvidia.com/gpu: \"8\"");
        // every operand DaemonSet, every pod with its containers' logs
        for (DaemonSet ds : client.apps().daemonSets().inNamespace(NS).list().getItems()) {
            assertThat(files)
                    .containsKey(
                            "namespaces/"
                                    + NS
                                    + "/daemonsets/"
                                    + ds.getMetadata().getName()
                                    + ".yaml");
        }
        Pod operator = controllerPod();
        String controller = operator.getMetadata().getName();
        assertThat(operands).isNotEmpty();
        for (Pod pod : operands) {
            String dir = "namespaces/" + NS + "/pods/" + pod.getMetadata().getName();
            assertThat(files).containsKey(dir + ".yaml");
            for (var c : pod.getSpec().getContainers()) {
                assertThat(files).containsKey(dir + "/" + c.getName() + ".log");
            }
        }
        assertThat(
                        files.get(
                                "namespaces/"
                                        + NS
                                        + "/pods/"
                                        + controller
                                        + "/operator-controller.log"))
                .isNotBlank();
        // events and the controller's metrics, through the API server's pod proxy
        assertThat(files.get("namespaces/" + NS + "/events.yaml")).contains("involvedObject");
        assertThat(files).containsKey("cluster/events.yaml");
        assertThat(files.get("metrics/" + controller + ".prom"))
                .contains("gpu_operator_reconciliation_status");

        // no Secret data anywhere: the Secret is listed by its keys, the logged value replaced
        String encoded =
                java.util.Base64.getEncoder()
                        .encodeToString(value.getBytes(StandardCharsets.UTF_8));
        files.forEach(
                (name, text) ->
                        assertThat(text).as(name).doesNotContain(value).doesNotContain(encoded));
        assertThat(files.get("namespaces/" + NS + "/secrets.yaml"))
                .contains("support-credentials")
                .contains("token: \"<redacted>\"");
        for (String log : List.of("echo.log", "echo.previous.log")) {
            assertThat(files.get("namespaces/" + NS + "/pods/secret-echo/" + log))
                    .as(log)
                    .contains("token=<redacted: secret " + NS + "/support-credentials key token>");
        }

        kubectl("delete", "-f", manifests.toString(), "--wait=false");
        kubectl("delete", "secret", "-n", NS, "support-credentials");
    }

    // --- reading what an admin reads

    /**
     * Every operand DaemonSet rolled out (kubectl rollout status), then the node and the policy
     * ready: right after a policy change the status still says ready from before it.
     */
    private static void awaitPolicyReady(Duration atMost) throws Exception {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () ->
                                !client.apps()
                                        .daemonSets()
                                        .inNamespace(NS)
                                        .list()
                                        .getItems()
                                        .isEmpty());
        for (DaemonSet ds : client.apps().daemonSets().inNamespace(NS).list().getItems()) {
            if (ds.getSpec().getUpdateStrategy() != null
                    && "OnDelete".equals(ds.getSpec().getUpdateStrategy().getType())) {
                continue; // the driver's: its pods are replaced by the upgrade, awaited below
            }
            String name = ds.getMetadata().getName();
            explainingRollout(
                    name,
                    () ->
                            kubectlTimed(
                                    (int) atMost.toSeconds() + 30,
                                    "rollout",
                                    "status",
                                    "-n",
                                    NS,
                                    "daemonset/" + name,
                                    "--timeout=" + atMost.toSeconds() + "s"));
        }
        Set<String> steps = new LinkedHashSet<>(NodeProgress.STEPS.keySet());
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            NodeProgress p = Scenarios.progress(cluster, NODE, steps);
                            assertThat(p.ready()).as(p.describe()).isTrue();
                            assertThat(
                                            kubectl(
                                                    "get",
                                                    "clusterpolicy",
                                                    POLICY,
                                                    "-o",
                                                    "jsonpath={.status.state}"))
                                    .isEqualTo("ready");
                        });
    }

    /** The operator's live pod (its Deployment's). */
    private static Pod controllerPod() {
        List<Pod> pods =
                client
                        .pods()
                        .inNamespace(NS)
                        .withLabel("app.kubernetes.io/component", "operator-controller")
                        .list()
                        .getItems()
                        .stream()
                        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                        .toList();
        assertThat(pods).as("the operator's pods").hasSize(1);
        return pods.getFirst();
    }

    /** The holder of the controller's leader-election Lease. */
    private static String leader() {
        Lease lease = client.leases().inNamespace(NS).withName(LEASE).get();
        return lease == null ? null : lease.getSpec().getHolderIdentity();
    }

    private static String nodeLabel(String key) {
        return Scenarios.labels(client, NODE).get(key);
    }

    private static String driverVersionLabel() {
        return nodeLabel("nvidia.com/cuda.driver-version.full");
    }

    private static Map<String, String> dsEnv(String name) {
        DaemonSet ds = client.apps().daemonSets().inNamespace(NS).withName(name).get();
        Map<String, String> env = new TreeMap<>();
        ds.getSpec().getTemplate().getSpec().getContainers().stream()
                .flatMap(c -> c.getEnv().stream())
                .filter(e -> e.getValue() != null)
                .forEach(e -> env.put(e.getName(), e.getValue()));
        return env;
    }

    /** Operand pod name -> uid and restart count. */
    private static Map<String, String> operandPods() {
        Map<String, String> pods = new TreeMap<>();
        for (Pod p : cluster.operandPodsOn(NODE)) {
            pods.put(
                    p.getMetadata().getName(),
                    p.getMetadata().getUid() + " restarts=" + Scenarios.restarts(p));
        }
        return pods;
    }

    private static Pod driverPod() {
        return cluster.operandPodsOn(NODE).stream()
                .filter(
                        p ->
                                "nvidia-driver"
                                        .equals(
                                                p.getMetadata()
                                                        .getLabels()
                                                        .get("app.kubernetes.io/component")))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .findFirst()
                .orElse(null);
    }

    private static String waitingReason(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        return pod.getStatus().getContainerStatuses().stream()
                .filter(c -> c.getState() != null && c.getState().getWaiting() != null)
                .map(c -> c.getState().getWaiting().getReason())
                .findFirst()
                .orElse(null);
    }

    // --- kubectl

    /**
     * {@code kubectl patch clusterpolicy cluster-policy --type=TYPE -p BODY}, as upstream's scripts
     * do.
     */
    private static String patchPolicy(String type, String body) throws Exception {
        return kubectl("patch", "clusterpolicy", POLICY, "--type=" + type, "-p", body);
    }

    private interface Step {
        void run() throws Exception;
    }

    /**
     * Runs {@code step}, a wait on pod {@code name} in the default namespace; when it fails, the
     * failure carries what a user would look at next: the pod's describe and the node's pods.
     */
    private static void explainingPod(String name, Step step) throws Exception {
        explaining(
                step, List.of("describe", "pod", name), List.of("get", "pods", "-A", "-o", "wide"));
    }

    /**
     * Runs {@code step}, a wait on the rollout of operand DaemonSet {@code ds}; when it fails, the
     * failure carries the node's pods and the logs of the DaemonSet's pods (why one is not ready).
     */
    private static void explainingRollout(String ds, Step step) throws Exception {
        explaining(
                step,
                List.of("get", "pods", "-A", "-o", "wide"),
                List.of("describe", "pods", "-n", NS, "-l", "app=" + ds),
                List.of("logs", "-n", NS, "-l", "app=" + ds, "--tail=60", "--prefix"));
    }

    /** Runs {@code step}; when it fails, the failure carries the output of each kubectl command. */
    @SafeVarargs
    private static void explaining(Step step, List<String>... commands) throws Exception {
        try {
            step.run();
        } catch (Exception | AssertionError e) {
            StringBuilder explained = new StringBuilder(String.valueOf(e.getMessage()));
            for (List<String> command : commands) {
                explained.append("\n--- kubectl ").append(String.join(" ", command)).append('\n');
                try {
                    explained.append(
                            Scenarios.kubectlRun(cluster, 30, command.toArray(String[]::new))
                                    .out());
                } catch (Exception more) {
                    explained.append(more);
                }
            }
            throw new AssertionError(explained.toString(), e);
        }
    }

    private static String kubectl(String... args) throws Exception {
        return Scenarios.kubectl(cluster, args);
    }

    private static String kubectlTimed(int seconds, String... args) throws Exception {
        return Scenarios.kubectlTimed(cluster, seconds, args);
    }

    private static String kubectlFails(String... args) throws Exception {
        return Scenarios.kubectlFails(cluster, args);
    }
}
