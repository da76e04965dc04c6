package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Deployment and ReplicaSet emulators and the garbage collector on the simulated API server,
 * read by the real kubectl: {@code rollout status} and {@code wait --for=condition=available}
 * return as on a real cluster. The test plays the kubelet: a pod is Running and Ready as soon as it
 * is bound, unless its image is {@code app:broken}. No node, no containerd.
 */
class WorkloadControllersKubectlIT {

    private static final String NS = "default";

    @TempDir Path work;

    private ApiServer api;
    private KubernetesClient client;
    private ScheduledExecutorService loop;
    private final List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        assumeThat(Files.isExecutable(Path.of("/usr/bin/kubectl")) || onPath())
                .as("kubectl is not on PATH")
                .isTrue();
        api = ApiServer.start(RepoRoot.find().resolve("deploy/crds"), work, "gpu-operator");
        client = api.client();
        DeploymentEmulator deployments = new DeploymentEmulator(client, events::add);
        ReplicaSetEmulator replicaSets = new ReplicaSetEmulator(client, events::add);
        GarbageCollector gc = new GarbageCollector(client, NS, events::add);
        loop = Executors.newSingleThreadScheduledExecutor();
        loop.scheduleWithFixedDelay(
                () -> {
                    try {
                        List<Deployment> ds =
                                client.apps().deployments().inAnyNamespace().list().getItems();
                        List<ReplicaSet> rss =
                                client.apps().replicaSets().inAnyNamespace().list().getItems();
                        List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
                        gc.syncWorkloads(ds, rss, pods);
                        deployments.sync(ds, rss);
                        replicaSets.sync(rss, pods);
                        pods.forEach(this::kubelet);
                    } catch (RuntimeException e) {
                        events.add("loop: " + e);
                    }
                },
                100,
                100,
                TimeUnit.MILLISECONDS);
    }

    private static boolean onPath() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, "kubectl"))) {
                return true;
            }
        }
        return false;
    }

    /** Binds a new pod and makes it Running, Ready unless its image is broken. */
    private void kubelet(Pod p) {
        if (p.getSpec().getNodeName() != null) {
            return;
        }
        boolean broken =
                p.getSpec().getContainers().stream()
                        .anyMatch(c -> "app:broken".equals(c.getImage()));
        client.pods()
                .inNamespace(p.getMetadata().getNamespace())
                .withName(p.getMetadata().getName())
                .edit(
                        current -> {
                            current.getSpec().setNodeName("node-1");
                            return current;
                        });
        client.pods()
                .inNamespace(p.getMetadata().getNamespace())
                .withName(p.getMetadata().getName())
                .editStatus(
                        current -> {
                            current.getStatus().setPhase("Running");
                            current.getStatus()
                                    .setConditions(
                                            List.of(
                                                    new io.fabric8.kubernetes.api.model
                                                                    .PodConditionBuilder()
                                                            .withType("Ready")
                                                            .withStatus(broken ? "False" : "True")
                                                            .withLastTransitionTime(
                                                                    Instant.now().toString())
                                                            .build()));
                            return current;
                        });
    }

    @AfterEach
    void stop() {
        if (loop != null) {
            loop.shutdownNow();
        }
        if (api != null) {
            api.close();
        }
    }

    private record Result(int exit, String output) {}

    private Result kubectl(String... args) throws IOException, InterruptedException {
        List<String> cmd =
                new ArrayList<>(
                        List.of("kubectl", "--kubeconfig", api.kubeconfig().toString(), "-n", NS));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new Result(p.exitValue(), out);
    }

    private Path manifest(String image, int replicas) throws IOException {
        Path f = work.resolve("web-" + image.replace(':', '-') + "-" + replicas + ".yaml");
        Files.writeString(
                f,
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                  namespace: default
                spec:
                  replicas: %d
                  selector:
                    matchLabels:
                      app: web
                  template:
                    metadata:
                      labels:
                        app: web
                    spec:
                      containers:
                        - name: web
                          image: %s
                """
                        .formatted(replicas, image));
        return f;
    }

    private List<Pod> podsOfWeb() {
        return client.pods().inNamespace(NS).withLabel("app", "web").list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    @Test
    void kubectlWaitsForADeploymentItsRolloutsAndItsDeletion() throws Exception {
        assertThat(kubectl("apply", "-f", manifest("app:1", 3).toString()).exit()).isZero();
        Result rollout = kubectl("rollout", "status", "deployment/web", "--timeout=60s");
        assertThat(rollout.output())
                .as(String.join("\n", events))
                .contains("deployment \"web\" successfully rolled out");
        assertThat(rollout.exit()).isZero();
        Result wait =
                kubectl("wait", "--for=condition=available", "deployment/web", "--timeout=30s");
        assertThat(wait.output()).contains("deployment.apps/web condition met");

        List<Pod> pods = podsOfWeb();
        assertThat(pods).hasSize(3);
        ReplicaSet first = client.apps().replicaSets().inNamespace(NS).list().getItems().get(0);
        String hash = first.getMetadata().getLabels().get("pod-template-hash");
        assertThat(first.getMetadata().getName()).isEqualTo("web-" + hash);
        assertThat(pods)
                .allSatisfy(
                        p -> {
                            assertThat(p.getMetadata().getName())
                                    .matches("web-" + hash + "-[bcdfghjklmnpqrstvwxz2456789]{5}");
                            assertThat(p.getMetadata().getOwnerReferences().get(0).getUid())
                                    .isEqualTo(first.getMetadata().getUid());
                        });

        // a deleted pod is replaced
        String gone = pods.get(0).getMetadata().getName();
        assertThat(kubectl("delete", "pod", gone).exit()).isZero();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () ->
                                assertThat(podsOfWeb())
                                        .hasSize(3)
                                        .noneMatch(p -> gone.equals(p.getMetadata().getName())));

        // a new template rolls out on a second ReplicaSet, revision 2
        assertThat(kubectl("apply", "-f", manifest("app:2", 3).toString()).exit()).isZero();
        rollout = kubectl("rollout", "status", "deployment/web", "--timeout=60s");
        assertThat(rollout.output()).contains("successfully rolled out");
        assertThat(podsOfWeb())
                .hasSize(3)
                .allSatisfy(
                        p ->
                                assertThat(p.getSpec().getContainers().get(0).getImage())
                                        .isEqualTo("app:2"));
        Deployment d = client.apps().deployments().inNamespace(NS).withName("web").get();
        assertThat(d.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "2");
        assertThat(kubectl("rollout", "history", "deployment/web").output())
                .contains("1 ")
                .contains("2 ");

        // a template whose pods never get ready: rollout status keeps waiting, Available stays
        assertThat(kubectl("apply", "-f", manifest("app:broken", 3).toString()).exit()).isZero();
        Result stuck = kubectl("rollout", "status", "deployment/web", "--timeout=5s");
        assertThat(stuck.exit()).isNotZero();
        assertThat(stuck.output()).contains("Waiting for deployment \"web\" rollout to finish");
        assertThat(
                        kubectl(
                                        "wait",
                                        "--for=condition=available",
                                        "deployment/web",
                                        "--timeout=5s")
                                .exit())
                .isZero();

        // deleting the Deployment deletes its ReplicaSets and their pods
        assertThat(kubectl("delete", "deployment", "web").exit()).isZero();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(
                        () -> {
                            assertThat(
                                            client.apps()
                                                    .replicaSets()
                                                    .inNamespace(NS)
                                                    .list()
                                                    .getItems())
                                    .isEmpty();
                            assertThat(podsOfWeb()).isEmpty();
                        });
    }
}
