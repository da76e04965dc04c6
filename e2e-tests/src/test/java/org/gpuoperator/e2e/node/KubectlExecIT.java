package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.cluster.ApiServer;
import org.gpuoperator.e2e.images.BusyboxImage;
import org.gpuoperator.e2e.images.SimulatedRegistry;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.kubelet.cri.CriClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The real kubectl exec against the simulated API server, into a container that a private
 * containerd runs (CriPodRunner's ExecSync).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubectlExecIT {

    static final String NODE = "exec-node-1";
    static final String NS = "default";

    Path dir;
    PrivateContainerd containerd;
    CriClient cri;
    ApiServer api;
    KubernetesClient client;
    CriPodRunner runner;
    ScheduledExecutorService loop;

    @BeforeAll
    void setUp() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "KubectlExecIT needs root (a private containerd and CNI): skipped, not passed");
        assumeTrue(
                PrivateContainerd.installed(),
                "KubectlExecIT needs containerd on the PATH: skipped, not passed");
        assumeTrue(
                BusyboxImage.available(),
                "KubectlExecIT needs /bin/busybox (busybox-static) for its image: skipped, not passed");
        assumeTrue(
                Files.isExecutable(Path.of("/usr/lib/cni/bridge"))
                        && Files.isExecutable(Path.of("/usr/lib/cni/host-local")),
                "KubectlExecIT needs the CNI plugins in /usr/lib/cni: skipped, not passed");
        assumeTrue(
                onPath("kubectl"), "KubectlExecIT needs kubectl on the PATH: skipped, not passed");
        // short: unix socket paths are limited to 107 bytes
        dir = Files.createTempDirectory(Path.of("/tmp"), "kex-");
        Path root = dir.resolve("n");
        Files.createDirectories(root.resolve("var/log"));
        containerd = new PrivateContainerd(root, NodeNetwork.allocate());
        containerd.writeInitialConfig();
        containerd.start();
        containerd.awaitCri(Duration.ofSeconds(30));
        containerd.importImage(BusyboxImage.ensure(dir.resolve("img")).archive());
        cri = new CriClient(containerd.socket());
        api =
                ApiServer.start(
                        RepoRoot.find().resolve("deploy/crds"),
                        Files.createDirectories(dir.resolve("api")),
                        NS);
        client = api.client();
        runner =
                new CriPodRunner(
                        client,
                        NODE,
                        root,
                        cri,
                        new CriPodRunner.Settings(
                                new ClusterAccess(
                                        "10.0.0.1",
                                        443,
                                        "test-token",
                                        "-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n"),
                                containerd.network().gateway(),
                                new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(4)),
                                SimulatedRegistry.standard(),
                                Duration.ofMillis(100)),
                        e -> System.out.println("[event] " + e));
        // as SimulatedCluster plugs in its nodes' runners
        api.podExec((pod, container) -> runner.execTarget(pod.uid(), container));
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
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("shell")
                                .withNamespace(NS)
                                .withUid(UUID.randomUUID().toString())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .withTerminationGracePeriodSeconds(1L)
                                .addNewInitContainer()
                                .withName("setup")
                                .withImage(BusyboxImage.REF)
                                .withCommand("true")
                                .endInitContainer()
                                .addNewContainer()
                                .withName("main")
                                .withImage(BusyboxImage.REF)
                                .withCommand("sleep", "3600")
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            Pod p = client.pods().inNamespace(NS).withName("shell").get();
                            assertThat(p.getStatus()).isNotNull();
                            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                        });
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
        }
        if (api != null) {
            api.close();
        }
        if (dir != null) {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void execPrintsBothStreamsAndExitsWithTheCommandsCode() throws Exception {
        Run r = kubectl("exec", "shell", "--", "sh", "-c", "echo out; echo err >&2; exit 3");
        assertThat(r.code()).as(r.err()).isEqualTo(3);
        assertThat(r.out()).isEqualTo("out\n");
        // kubectl's own note first: the pod has an init container too
        assertThat(r.err())
                .isEqualTo(
                        "Defaulted container \"main\" out of: main, setup (init)\n"
                                + "err\n"
                                + "command terminated with exit code 3\n");
    }

    @Test
    void execReadsAFileOfTheContainer() throws Exception {
        Run r = kubectl("exec", "shell", "-c", "main", "--", "cat", "/etc/hostname");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("shell\n");
    }

    @Test
    void aContainerNotInThePodOrNotRunningIsRefusedWithKubeApiserversAndTheKubeletsMessage()
            throws Exception {
        Run missing = kubectl("exec", "shell", "-c", "nope", "--", "true");
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err())
                .contains(
                        "Error from server (BadRequest): container nope is not valid for pod shell");
        // the init container ran to its end: the kubelet finds no running container
        Run done = kubectl("exec", "shell", "-c", "setup", "--", "true");
        assertThat(done.code()).isEqualTo(1);
        assertThat(done.err())
                .contains("error: unable to upgrade connection: container not found (\"setup\")");
    }

    record Run(int code, String out, String err) {}

    private Run kubectl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("kubectl");
        Collections.addAll(cmd, args);
        Path err = dir.resolve("kubectl.err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().put("KUBECONFIG", api.kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("kubectl %s finished", cmd).isTrue();
        String e = Files.readString(err);
        System.out.println("[kubectl " + String.join(" ", args) + "] " + p.exitValue() + " " + e);
        return new Run(p.exitValue(), out, e);
    }

    private static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }
}
