package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.gpuoperator.e2e.images.BusyboxImage;
import org.gpuoperator.e2e.images.CudaSampleImage;
import org.gpuoperator.e2e.images.SimulatedRegistry;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.ContainerFilter;
import org.gpuoperator.kubelet.cri.v1.PodSandboxFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@link CriPodRunner} against a real private containerd with a CNI bridge and a busybox image:
 * pods get pod IPs, see exactly their volumes, run as their user, flip Ready through their probes,
 * crash-loop with back-off, fail on a missing Directory hostPath with the kubelet's message, log in
 * CRI format, and leave nothing behind when deleted. Pod objects and status writes go through
 * fabric8's mock API server (CRUD mode).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CriPodRunnerIT {

    static final String NODE = "cri-node-1";
    static final String NS = "default";
    static final ClusterAccess ACCESS =
            new ClusterAccess(
                    "10.0.0.1",
                    443,
                    "test-token",
                    "-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n");

    Path dir;
    Path root;
    PrivateContainerd containerd;
    CriClient cri;
    KubernetesMockServer server;
    KubernetesClient client;
    CriPodRunner runner;
    ScheduledExecutorService loop;
    final List<String> events = new CopyOnWriteArrayList<>();

    @BeforeAll
    void setUp() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "CriPodRunnerIT needs root (a private containerd and CNI): skipped, not passed");
        assumeTrue(
                PrivateContainerd.installed(),
                "CriPodRunnerIT needs containerd on the PATH: skipped, not passed");
        assumeTrue(
                BusyboxImage.available(),
                "CriPodRunnerIT needs /bin/busybox (busybox-static) for its image: skipped, not passed");
        assumeTrue(
                Files.isExecutable(Path.of("/usr/lib/cni/bridge"))
                        && Files.isExecutable(Path.of("/usr/lib/cni/host-local")),
                "CriPodRunnerIT needs the CNI plugins in /usr/lib/cni (containernetworking-plugins): skipped, not passed");
        dir =
                Files.createTempDirectory(
                        Path.of("/tmp"),
                        "crip-"); // short: unix socket paths are limited to 107 bytes
        root = dir.resolve("n");
        Files.createDirectories(root.resolve("var/log"));
        containerd = new PrivateContainerd(root, NodeNetwork.allocate());
        containerd.writeInitialConfig();
        containerd.start();
        containerd.awaitCri(Duration.ofSeconds(30));
        containerd.importImage(BusyboxImage.ensure(dir.resolve("img")).archive());
        containerd.importImage(CudaSampleImage.ensure(dir.resolve("img")).archive());
        cri = new CriClient(containerd.socket());

        server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(List.of()),
                        false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();

        runner =
                new CriPodRunner(
                        client,
                        NODE,
                        root,
                        cri,
                        new CriPodRunner.Settings(
                                ACCESS,
                                containerd.network().gateway(),
                                new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(4)),
                                SimulatedRegistry.standard(),
                                Duration.ofMillis(100)),
                        e -> {
                            events.add(e);
                            System.out.println("[event] " + e);
                        });
        loop = Executors.newSingleThreadScheduledExecutor();
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        runner.sync(
                                client.pods().inAnyNamespace().list().getItems().stream()
                                        .filter(p -> NODE.equals(p.getSpec().getNodeName()))
                                        .toList());
                    } catch (RuntimeException e) {
                        e.printStackTrace();
                    }
                },
                0,
                200,
                TimeUnit.MILLISECONDS);
    }

    @AfterAll
    void tearDown() throws Exception {
        if (loop != null) {
            loop.shutdownNow();
            loop.awaitTermination(5, TimeUnit.SECONDS);
        }
        if (runner != null) {
            runner.close();
        }
        if (cri != null) {
            cri.close();
        }
        if (containerd != null) {
            containerd.close();
            System.out.println(
                    String.join(
                            "\n",
                            containerd.logLines().stream()
                                    .filter(l -> l.contains("level=error"))
                                    .toList()));
        }
        if (server != null) {
            server.destroy();
        }
        if (dir != null) {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    Pod pod(String name) {
        return client.pods().inNamespace(NS).withName(name).get();
    }

    ContainerStatus status(String pod) {
        Pod p = pod(pod);
        return p.getStatus() == null
                        || p.getStatus().getContainerStatuses() == null
                        || p.getStatus().getContainerStatuses().isEmpty()
                ? null
                : p.getStatus().getContainerStatuses().get(0);
    }

    String exec(String pod, String... cmd) {
        String id = status(pod).getContainerID().replace("containerd://", "");
        var r = cri.execSync(id, List.of(cmd), Duration.ofSeconds(5));
        return r.getExitCode() + ":" + r.getStdout().toString(StandardCharsets.UTF_8).trim();
    }

    @Test
    @Order(1)
    void aPodGetsAPodIpSeesExactlyItsVolumesRunsAsItsUserAndItsProbeFlipsReady() throws Exception {
        Path data = root.resolve("srv/data");
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.writeString(data.resolve("from-host"), "host-file");
        Files.createDirectories(root.resolve("srv/secret-elsewhere"));
        client.configMaps()
                .inNamespace(NS)
                .resource(
                        new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName("web-cfg")
                                .endMetadata()
                                .addToData("index.html", "hello from configmap")
                                .build())
                .create();
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("web")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .withTerminationGracePeriodSeconds(2L)
                                .addNewVolume()
                                .withName("data")
                                .withNewHostPath()
                                .withPath("/srv/data")
                                .withType("Directory")
                                .endHostPath()
                                .endVolume()
                                .addNewVolume()
                                .withName("cfg")
                                .withNewConfigMap()
                                .withName("web-cfg")
                                .endConfigMap()
                                .endVolume()
                                .addNewContainer()
                                .withName("web")
                                .withImage(BusyboxImage.REF)
                                .withCommand(
                                        "sh",
                                        "-c",
                                        "id -u > /data/uid; echo hello-log; exec httpd -f -p 8080 -h /www")
                                .addNewEnv()
                                .withName("MY_NODE")
                                .withNewValueFrom()
                                .withNewFieldRef()
                                .withFieldPath("spec.nodeName")
                                .endFieldRef()
                                .endValueFrom()
                                .endEnv()
                                .addNewEnv()
                                .withName("MY_IP")
                                .withNewValueFrom()
                                .withNewFieldRef()
                                .withFieldPath("status.podIP")
                                .endFieldRef()
                                .endValueFrom()
                                .endEnv()
                                .addNewVolumeMount()
                                .withName("data")
                                .withMountPath("/data")
                                .endVolumeMount()
                                .addNewVolumeMount()
                                .withName("cfg")
                                .withMountPath("/www")
                                .endVolumeMount()
                                .withNewSecurityContext()
                                .withRunAsUser(1000L)
                                .withAllowPrivilegeEscalation(false)
                                .endSecurityContext()
                                .withNewReadinessProbe()
                                .withNewHttpGet()
                                .withPath("/index.html")
                                .withNewPort(8080)
                                .endHttpGet()
                                .withPeriodSeconds(1)
                                .endReadinessProbe()
                                .endContainer()
                                .endSpec()
                                .build())
                .create();

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            Pod p = pod("web");
                            assertThat(p.getStatus()).isNotNull();
                            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                            assertThat(p.getStatus().getConditions())
                                    .anyMatch(
                                            c ->
                                                    c.getType().equals("Ready")
                                                            && c.getStatus().equals("True"));
                        });
        Pod p = pod("web");
        String subnetPrefix = "10.88." + containerd.network().index() + ".";
        assertThat(p.getStatus().getPodIP())
                .startsWith(subnetPrefix)
                .isNotEqualTo(containerd.network().gateway());
        assertThat(p.getStatus().getPodIPs()).hasSize(1);
        assertThat(p.getStatus().getHostIP()).isEqualTo(containerd.network().gateway());
        assertThat(p.getStatus().getContainerStatuses().get(0).getReady()).isTrue();

        assertThat(Files.readString(data.resolve("uid")).trim()).isEqualTo("1000");
        assertThat(exec("web", "cat", "/data/from-host")).isEqualTo("0:host-file");
        assertThat(exec("web", "cat", "/www/index.html")).isEqualTo("0:hello from configmap");
        assertThat(exec("web", "id", "-u")).isEqualTo("0:1000");
        assertThat(
                        exec(
                                "web",
                                "sh",
                                "-c",
                                "echo $MY_NODE $MY_IP $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT"))
                .isEqualTo("0:" + NODE + " " + p.getStatus().getPodIP() + " 10.0.0.1:443");
        // the token names the pod's service account (the simulated API server tells callers apart)
        assertThat(exec("web", "cat", "/var/run/secrets/kubernetes.io/serviceaccount/token"))
                .isEqualTo(
                        "0:"
                                + org.gpuoperator.e2e.apiserver.ServiceAccountTokens.mint(
                                        NS, "default"));
        assertThat(exec("web", "cat", "/var/run/secrets/kubernetes.io/serviceaccount/namespace"))
                .isEqualTo("0:" + NS);
        // nothing of the node's host root but its volumes
        assertThat(exec("web", "ls", "/srv")).startsWith("1:");
        assertThat(exec("web", "ls", "/etc/containerd")).startsWith("1:");
        assertThat(exec("web", "sh", "-c", "grep NoNewPrivs /proc/self/status")).contains("1");

        // the host reaches the pod on its pod IP through the bridge
        var http = java.net.http.HttpClient.newHttpClient();
        var resp =
                http.send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create(
                                                "http://"
                                                        + p.getStatus().getPodIP()
                                                        + ":8080/index.html"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(resp.body()).isEqualTo("hello from configmap");

        // a ConfigMap change reaches the mounted file, through the ..data swap
        client.configMaps()
                .inNamespace(NS)
                .withName("web-cfg")
                .edit(
                        cm -> {
                            cm.getData().put("index.html", "changed");
                            return cm;
                        });
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(exec("web", "cat", "/www/index.html"))
                                        .isEqualTo("0:changed"));

        // logs in CRI format, where the kubelet keeps them
        Path log =
                root.resolve(
                        "var/log/pods/" + NS + "_web_" + p.getMetadata().getUid() + "/web/0.log");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(log).exists());
        assertThat(Files.readString(log))
                .matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\S+ stdout F hello-log\n.*");
    }

    @Test
    @Order(2)
    void aContainerThatExitsOneCrashLoopsWithBackOffAndAGrowingRestartCount() {
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("crasher")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .withTerminationGracePeriodSeconds(1L)
                                .withAutomountServiceAccountToken(false)
                                .addNewContainer()
                                .withName("crash")
                                .withImage(BusyboxImage.REF)
                                .withCommand("sh", "-c", "echo boom; exit 1")
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            Pod p = pod("crasher"); // one snapshot: between two runs the
                            // container is briefly running (and ready)
                            assertThat(p.getStatus()).isNotNull();
                            assertThat(p.getStatus().getContainerStatuses()).isNotEmpty();
                            ContainerStatus cs = p.getStatus().getContainerStatuses().get(0);
                            assertThat(cs.getState().getWaiting()).isNotNull();
                            assertThat(cs.getState().getWaiting().getReason())
                                    .isEqualTo("CrashLoopBackOff");
                            assertThat(cs.getState().getWaiting().getMessage())
                                    .startsWith("back-off ")
                                    .contains("restarting failed container=crash");
                            assertThat(cs.getLastState().getTerminated().getExitCode())
                                    .isEqualTo(1);
                            assertThat(cs.getRestartCount()).isGreaterThanOrEqualTo(2);
                            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                            assertThat(p.getStatus().getConditions())
                                    .anyMatch(
                                            c ->
                                                    c.getType().equals("Ready")
                                                            && c.getStatus().equals("False"));
                        });
        int before = status("crasher").getRestartCount();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(status("crasher").getRestartCount())
                                        .isGreaterThan(before));
    }

    @Test
    @Order(3)
    void initContainersRunFirstInOrderAndAFailingLivenessProbeRestartsTheContainer() {
        client.secrets()
                .inNamespace(NS)
                .resource(
                        new io.fabric8.kubernetes.api.model.SecretBuilder()
                                .withNewMetadata()
                                .withName("creds")
                                .endMetadata()
                                .addToStringData("password", "s3cret")
                                .build())
                .create();
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("staged")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .withTerminationGracePeriodSeconds(1L)
                                .addNewVolume()
                                .withName("work")
                                .withNewEmptyDir()
                                .endEmptyDir()
                                .endVolume()
                                .addNewInitContainer()
                                .withName("first")
                                .withImage(BusyboxImage.REF)
                                .withCommand("sh", "-c", "echo first >> /work/order")
                                .addNewVolumeMount()
                                .withName("work")
                                .withMountPath("/work")
                                .endVolumeMount()
                                .endInitContainer()
                                .addNewInitContainer()
                                .withName("second")
                                .withImage(BusyboxImage.REF)
                                .withCommand("sh", "-c", "echo second >> /work/order")
                                .addNewVolumeMount()
                                .withName("work")
                                .withMountPath("/work")
                                .endVolumeMount()
                                .endInitContainer()
                                .addNewContainer()
                                .withName("main")
                                .withImage(BusyboxImage.REF)
                                .withCommand(
                                        "sh",
                                        "-c",
                                        "touch /tmp/alive; exec httpd -f -p 9000 -h /tmp")
                                .addNewEnv()
                                .withName("PASSWORD")
                                .withNewValueFrom()
                                .withNewSecretKeyRef()
                                .withName("creds")
                                .withKey("password")
                                .endSecretKeyRef()
                                .endValueFrom()
                                .endEnv()
                                .addNewVolumeMount()
                                .withName("work")
                                .withMountPath("/work")
                                .endVolumeMount()
                                .withNewReadinessProbe()
                                .withNewTcpSocket()
                                .withNewPort(9000)
                                .endTcpSocket()
                                .withPeriodSeconds(1)
                                .endReadinessProbe()
                                .withNewLivenessProbe()
                                .withNewExec()
                                .withCommand("cat", "/tmp/alive")
                                .endExec()
                                .withPeriodSeconds(1)
                                .withFailureThreshold(2)
                                .endLivenessProbe()
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            Pod p = pod("staged");
                            assertThat(p.getStatus()).isNotNull();
                            assertThat(p.getStatus().getConditions())
                                    .anyMatch(
                                            c ->
                                                    c.getType().equals("Ready")
                                                            && c.getStatus().equals("True"));
                            assertThat(p.getStatus().getInitContainerStatuses())
                                    .allMatch(
                                            cs ->
                                                    cs.getState().getTerminated() != null
                                                            && cs.getState()
                                                                            .getTerminated()
                                                                            .getExitCode()
                                                                    == 0);
                        });
        assertThat(exec("staged", "cat", "/work/order")).isEqualTo("0:first\nsecond");
        assertThat(exec("staged", "sh", "-c", "echo $PASSWORD")).isEqualTo("0:s3cret");
        assertThat(exec("staged", "rm", "/tmp/alive")).startsWith("0:");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            ContainerStatus cs = status("staged");
                            assertThat(cs.getRestartCount()).isEqualTo(1);
                            assertThat(cs.getReady()).isTrue();
                        });
        // the init containers did not run again
        assertThat(exec("staged", "cat", "/work/order")).isEqualTo("0:first\nsecond");

        // a sandbox stopped behind the kubelet's back: a new sandbox, init containers again,
        // restart count one up
        String sandbox =
                cri.listPodSandbox(
                                PodSandboxFilter.newBuilder()
                                        .putLabelSelector("io.kubernetes.pod.name", "staged")
                                        .build())
                        .get(0)
                        .getId();
        cri.stopPodSandbox(sandbox);
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Pod p = pod("staged");
                            assertThat(
                                            p.getStatus()
                                                    .getContainerStatuses()
                                                    .get(0)
                                                    .getRestartCount())
                                    .isEqualTo(2);
                            assertThat(p.getStatus().getConditions())
                                    .anyMatch(
                                            c ->
                                                    c.getType().equals("Ready")
                                                            && c.getStatus().equals("True"));
                            assertThat(exec("staged", "cat", "/work/order"))
                                    .isEqualTo("0:first\nsecond\nfirst\nsecond");
                        });
        assertThat(
                        cri.listPodSandbox(
                                PodSandboxFilter.newBuilder()
                                        .putLabelSelector("io.kubernetes.pod.name", "staged")
                                        .build()))
                .extracting(org.gpuoperator.kubelet.cri.v1.PodSandbox::getId)
                .doesNotContain(sandbox);
    }

    @Test
    @Order(4)
    void aMissingDirectoryHostPathFailsWithTheKubeletsMessage() {
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("nodir")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .addNewVolume()
                                .withName("gone")
                                .withNewHostPath()
                                .withPath("/does/not/exist")
                                .withType("Directory")
                                .endHostPath()
                                .endVolume()
                                .addNewContainer()
                                .withName("c")
                                .withImage(BusyboxImage.REF)
                                .addNewVolumeMount()
                                .withName("gone")
                                .withMountPath("/gone")
                                .endVolumeMount()
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            ContainerStatus cs = status("nodir");
                            assertThat(cs).isNotNull();
                            assertThat(cs.getState().getWaiting().getReason())
                                    .isEqualTo("ContainerCreating");
                            assertThat(cs.getState().getWaiting().getMessage())
                                    .contains(
                                            "hostPath type check failed: /does/not/exist is not a directory");
                        });
        assertThat(pod("nodir").getStatus().getPhase()).isEqualTo("Pending");
        assertThat(root.resolve("does")).doesNotExist();
    }

    @Test
    @Order(5)
    void aTerminatingPodIsStoppedWhileItsObjectStillExists() {
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("held")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .addToFinalizers("test.gpuoperator.org/hold")
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .withTerminationGracePeriodSeconds(1L)
                                .withAutomountServiceAccountToken(false)
                                .addNewContainer()
                                .withName("c")
                                .withImage(BusyboxImage.REF)
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(status("held"))
                                        .isNotNull()
                                        .satisfies(
                                                cs ->
                                                        assertThat(cs.getState().getRunning())
                                                                .isNotNull()));
        String uid = pod("held").getMetadata().getUid();
        client.pods().inNamespace(NS).withName("held").delete();
        assertThat(pod("held").getMetadata().getDeletionTimestamp())
                .as("the mock server keeps a pod with a finalizer")
                .isNotNull();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            assertThat(runner.has(uid)).isFalse();
                            assertThat(
                                            cri.listPodSandbox(
                                                    PodSandboxFilter.newBuilder()
                                                            .putLabelSelector(
                                                                    "io.kubernetes.pod.uid", uid)
                                                            .build()))
                                    .isEmpty();
                        });
        client.pods()
                .inNamespace(NS)
                .withName("held")
                .edit(
                        p -> {
                            p.getMetadata().setFinalizers(List.of());
                            return p;
                        });
    }

    @Test
    @Order(6)
    void deletingThePodsStopsAndRemovesSandboxesContainersAndVolumes() throws Exception {
        List<String> uids =
                client.pods().inNamespace(NS).list().getItems().stream()
                        .map(p -> p.getMetadata().getUid())
                        .toList();
        assertThat(cri.listPodSandbox(PodSandboxFilter.getDefaultInstance())).isNotEmpty();
        client.pods().inNamespace(NS).delete();
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            assertThat(cri.listPodSandbox(PodSandboxFilter.getDefaultInstance()))
                                    .isEmpty();
                            assertThat(cri.listContainers(ContainerFilter.getDefaultInstance()))
                                    .isEmpty();
                            assertThat(uids).noneMatch(runner::has);
                        });
        try (Stream<Path> left = Files.list(root.resolve("var/lib/kubelet/pods"))) {
            assertThat(left.toList()).isEmpty();
        }
    }

    @Test
    @Order(7)
    void aSimulatedNodeInContainerModeRunsItsPodsThroughCriAndRemovesThemOnClose()
            throws Exception {
        Path nodeRoot = dir.resolve("m");
        SimulatedNode node =
                SimulatedNode.start(
                        "cri-node-2",
                        nodeRoot,
                        client,
                        null,
                        Map.of(),
                        true,
                        new PodMode.Containers(
                                ACCESS,
                                new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(4)),
                                List.of(BusyboxImage.ensure(dir.resolve("img")).archive())),
                        e -> System.out.println("[node event] " + e));
        try {
            assertThat(node.pods()).isInstanceOf(CriPodRunner.class);
            assertThat(node.address()).isEqualTo(node.containerd().network().gateway());
            client.pods()
                    .inNamespace(NS)
                    .resource(
                            new PodBuilder()
                                    .withNewMetadata()
                                    .withName("agent")
                                    .withNamespace(NS)
                                    .withUid(UUID.randomUUID().toString())
                                    .endMetadata()
                                    .withNewSpec()
                                    .withNodeName("cri-node-2")
                                    .withHostNetwork(true)
                                    // sleep as PID 1 ignores SIGTERM: the node's close gives it
                                    // CLOSE_GRACE, not this minute
                                    .withTerminationGracePeriodSeconds(60L)
                                    .addNewContainer()
                                    .withName("agent")
                                    .withImage("docker.io/library/ubuntu:22.04")
                                    .withArgs("sleep", "600")
                                    .endContainer()
                                    .endSpec()
                                    .build())
                    .create();
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(
                            () -> {
                                node.sync(
                                        client.pods().inNamespace(NS).list().getItems().stream()
                                                .filter(
                                                        p ->
                                                                "cri-node-2"
                                                                        .equals(
                                                                                p.getSpec()
                                                                                        .getNodeName()))
                                                .toList());
                                Pod p = pod("agent");
                                assertThat(p.getStatus()).isNotNull();
                                assertThat(p.getStatus().getConditions())
                                        .anyMatch(
                                                c ->
                                                        c.getType().equals("Ready")
                                                                && c.getStatus().equals("True"));
                                // host network: the pod IP is the node's address
                                assertThat(p.getStatus().getPodIP()).isEqualTo(node.address());
                            });
        } finally {
            long closing = System.nanoTime();
            node.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing))
                    .as("the node's close: SIGKILL after CLOSE_GRACE, not the pod's 60 s")
                    .isLessThan(CriPodRunner.CLOSE_GRACE.plusSeconds(25));
        }
        try (CriClient other = new CriClient(node.containerd().socket())) {
            // the daemon is stopped with the node; its socket is gone
            assertThat(Files.exists(node.containerd().socket())).isFalse();
        }
        client.pods().inNamespace(NS).withName("agent").delete();
    }

    List<String> podEvents(String pod) {
        return client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> pod.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getType() + " " + e.getReason() + " " + e.getMessage())
                .toList();
    }

    Pod workload(String name, String image, String... hostDevices) {
        return workload(name, image, null, List.of(hostDevices));
    }

    Pod workload(String name, String image, String pullPolicy, List<String> hostDevices) {
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NS)
                        .withUid(UUID.randomUUID().toString())
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(NODE)
                        .withRestartPolicy("Never")
                        .withTerminationGracePeriodSeconds(1L)
                        .addNewContainer()
                        .withName(name)
                        .withImage(image)
                        .withImagePullPolicy(pullPolicy)
                        .endContainer()
                        .endSpec();
        for (String dev : hostDevices) {
            String volume = dev.replace("/dev/", "");
            b.editSpec()
                    .addNewVolume()
                    .withName(volume)
                    .withNewHostPath()
                    .withPath("/srv/fake-dev/" + volume)
                    .withType("File")
                    .endHostPath()
                    .endVolume()
                    .editFirstContainer()
                    .addNewVolumeMount()
                    .withName(volume)
                    .withMountPath(dev)
                    .endVolumeMount()
                    .endContainer()
                    .endSpec();
        }
        return client.pods().inNamespace(NS).resource(b.build()).create();
    }

    @Test
    @Order(8)
    void anImageNothingServesIsErrImagePullThenImagePullBackOffWithTheKubeletsEvents() {
        String image = "registry.example.com/team/app:1.0";
        List<String> reasons = new CopyOnWriteArrayList<>();
        List<String> messages = new CopyOnWriteArrayList<>();
        try (var watch =
                client.pods()
                        .inNamespace(NS)
                        .withName("unserved")
                        .watch(
                                new io.fabric8.kubernetes.client.Watcher<Pod>() {
                                    @Override
                                    public void eventReceived(Action action, Pod p) {
                                        if (p.getStatus() == null
                                                || p.getStatus().getContainerStatuses() == null) {
                                            return;
                                        }
                                        for (ContainerStatus cs :
                                                p.getStatus().getContainerStatuses()) {
                                            if (cs.getState().getWaiting() != null) {
                                                reasons.add(cs.getState().getWaiting().getReason());
                                                messages.add(
                                                        cs.getState().getWaiting().getMessage());
                                            }
                                        }
                                    }

                                    @Override
                                    public void onClose(
                                            io.fabric8.kubernetes.client.WatcherException e) {}
                                })) {
            workload("unserved", image);
            String error =
                    "rpc error: code = Unknown desc = failed to pull and unpack image \""
                            + image
                            + "\": failed to resolve reference \""
                            + image
                            + "\": failed to do request: Head"
                            + " \"https://registry.example.com/v2/team/app/manifests/1.0\": dial tcp:"
                            + " lookup registry.example.com: no such host";
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> {
                                assertThat(reasons).contains("ErrImagePull", "ImagePullBackOff");
                                assertThat(reasons.indexOf("ErrImagePull"))
                                        .isLessThan(reasons.indexOf("ImagePullBackOff"));
                                assertThat(messages).contains(error);
                                assertThat(messages)
                                        .contains(
                                                "Back-off pulling image \""
                                                        + image
                                                        + "\": ErrImagePull: "
                                                        + error);
                                // retried after the back-off (500 ms, then 1 s here)
                                assertThat(
                                                podEvents("unserved").stream()
                                                        .filter(
                                                                e ->
                                                                        e.equals(
                                                                                "Normal Pulling Pulling image \""
                                                                                        + image
                                                                                        + "\""))
                                                        .count())
                                        .isGreaterThanOrEqualTo(2);
                            });
            assertThat(podEvents("unserved"))
                    .contains(
                            "Warning Failed Failed to pull image \"" + image + "\": " + error,
                            "Warning Failed Error: ErrImagePull",
                            "Normal BackOff Back-off pulling image \"" + image + "\"",
                            "Warning Failed Error: ImagePullBackOff");
            Pod p = pod("unserved");
            assertThat(p.getStatus().getPhase()).isEqualTo("Pending");
            assertThat(p.getStatus().getContainerStatuses().get(0).getImage()).isEqualTo(image);
        }
        client.pods().inNamespace(NS).withName("unserved").delete();
    }

    @Test
    @Order(9)
    void neverWithAMissingImageIsErrImageNeverPull() {
        workload("never", "docker.io/library/alpine:3.20", "Never", List.of());
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> {
                            ContainerStatus cs = status("never");
                            assertThat(cs).isNotNull();
                            assertThat(cs.getState().getWaiting().getReason())
                                    .isEqualTo("ErrImageNeverPull");
                            assertThat(cs.getState().getWaiting().getMessage())
                                    .isEqualTo(
                                            "Container image \"docker.io/library/alpine:3.20\" is not"
                                                    + " present with pull policy of Never");
                        });
        client.pods().inNamespace(NS).withName("never").delete();
    }

    @Test
    @Order(10)
    void cudaVectorAddFailsWithoutAGpuAndPassesWhereTheContainerSeesOne() throws Exception {
        String image = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0";
        Pod noGpu = workload("vectoradd-nogpu", image);
        Files.createDirectories(root.resolve("srv/fake-dev"));
        Files.writeString(root.resolve("srv/fake-dev/nvidia0"), "");
        Files.writeString(root.resolve("srv/fake-dev/nvidiactl"), "");
        Pod gpu = workload("vectoradd-gpu", image, "/dev/nvidia0", "/dev/nvidiactl");
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(pod("vectoradd-nogpu").getStatus().getPhase())
                                    .isEqualTo("Failed");
                            assertThat(pod("vectoradd-gpu").getStatus().getPhase())
                                    .isEqualTo("Succeeded");
                        });
        ContainerStatus failed = status("vectoradd-nogpu");
        assertThat(failed.getState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(failed.getImage()).isEqualTo(image);
        assertThat(failed.getImageID()).startsWith("sha256:");
        // one line on each stream: the runtime logs the two streams apart, so their order in the
        // log file is not the order they were written in
        assertThat(log(noGpu))
                .containsExactlyInAnyOrder(
                        "stdout [Vector addition of 50000 elements]",
                        "stderr Failed to allocate device vector A (error code no CUDA-capable"
                                + " device is detected)!");
        assertThat(log(gpu))
                .containsExactly(
                        "stdout [Vector addition of 50000 elements]",
                        "stdout Copy input data from the host memory to the CUDA device",
                        "stdout CUDA kernel launch with 196 blocks of 256 threads",
                        "stdout Copy output data from the CUDA device to the host memory",
                        "stdout Test PASSED",
                        "stdout Done");
        // the first pod pulled it, the second found it present
        assertThat(podEvents("vectoradd-nogpu").toString() + podEvents("vectoradd-gpu"))
                .contains("Normal Pulling Pulling image \"" + image + "\"")
                .containsPattern(
                        "Normal Pulled Successfully pulled image \""
                                + java.util.regex.Pattern.quote(image)
                                + "\" in \\S+ \\(\\S+ including waiting\\)\\. Image size: \\d+ bytes\\.");
        client.pods().inNamespace(NS).withName("vectoradd-nogpu").delete();
        client.pods().inNamespace(NS).withName("vectoradd-gpu").delete();
    }

    /** The container's log lines as {@code <stream> <text>}. */
    List<String> log(Pod p) throws Exception {
        String name = p.getMetadata().getName();
        Path log =
                root.resolve(
                        "var/log/pods/"
                                + NS
                                + "_"
                                + name
                                + "_"
                                + p.getMetadata().getUid()
                                + "/"
                                + name
                                + "/0.log");
        return Files.readAllLines(log).stream()
                .map(l -> l.split(" ", 4))
                .map(f -> f[1] + " " + f[3])
                .toList();
    }
}
