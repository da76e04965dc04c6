package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.kubelet.cri.CriClient;
import org.junit.jupiter.api.TestInfo;

/**
 * What the scenario classes share: the simulated cluster they start, the sample policies they
 * apply, what they read of a node, its operand pods and the policy's status, and kubectl against
 * the cluster as an admin runs it.
 */
final class Scenarios {

    /** The chart's policy with {@code simulation} on, relative to the repository root. */
    static final String SIMULATED_POLICY = "deploy/samples/clusterpolicy-simulated.yaml";

    /** Upstream's chart-rendered default ClusterPolicy, relative to the repository root. */
    static final String UPSTREAM_CHART_POLICY =
            "deploy/samples/upstream/clusterpolicy-chart-default.yaml";

    private Scenarios() {}

    // --- the cluster

    /**
     * A simulated cluster with a containerd per node (pods as containers where the machine allows
     * it), whose controller runs in-process; its progress lines go to {@code events}.
     */
    static SimulatedCluster start(List<String> events) throws IOException {
        return SimulatedCluster.start(
                new SimulatedCluster.Options(
                        RepoRoot.find(), true, ControllerLauncher::start, events::add));
    }

    /** A client that talks to the API server as kubectl does, through the front. */
    static KubernetesClient front(SimulatedCluster cluster) {
        try {
            return new KubernetesClientBuilder()
                    .withConfig(Config.fromKubeconfig(Files.readString(cluster.api().kubeconfig())))
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Prints the scenario's name as it starts, for the log of a long run. */
    static void announce(TestInfo info) {
        System.out.println("=== scenario " + info.getDisplayName() + " (" + Instant.now() + ")");
    }

    /** Prints the last {@code count} cluster events, for a failure's context. */
    static void printLastEvents(List<String> events, int count) {
        synchronized (events) {
            events.subList(Math.max(0, events.size() - count), events.size())
                    .forEach(e -> System.out.println("  event: " + e));
        }
    }

    // --- the policy

    /** The sample policy at {@code path} (relative to the repository root), as written. */
    static GenericKubernetesResource samplePolicy(String path) throws IOException {
        return Serialization.unmarshal(
                Files.readString(RepoRoot.find().resolve(path)), GenericKubernetesResource.class);
    }

    /** The policy's spec, to edit in place. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> spec(GenericKubernetesResource policy) {
        return (Map<String, Object>) policy.getAdditionalProperties().get("spec");
    }

    /** The ClusterPolicy's status, or an empty map before the controller wrote one. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> policyStatus(KubernetesClient client, String policy) {
        Object status =
                client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                        .withName(policy)
                        .get()
                        .getAdditionalProperties()
                        .get("status");
        return status == null ? Map.of() : (Map<String, Object>) status;
    }

    // --- a node

    static Map<String, String> labels(KubernetesClient client, String node) {
        Map<String, String> l = client.nodes().withName(node).get().getMetadata().getLabels();
        return l == null ? Map.of() : l;
    }

    static Map<String, String> annotations(KubernetesClient client, String node) {
        Map<String, String> a = client.nodes().withName(node).get().getMetadata().getAnnotations();
        return a == null ? Map.of() : a;
    }

    /** Sets the node's label {@code key} to {@code value}, or removes it where value is null. */
    static void label(KubernetesClient client, String node, String key, String value) {
        client.nodes()
                .withName(node)
                .edit(
                        n -> {
                            Map<String, String> l = new HashMap<>(n.getMetadata().getLabels());
                            if (value == null) {
                                l.remove(key);
                            } else {
                                l.put(key, value);
                            }
                            n.getMetadata().setLabels(l);
                            return n;
                        });
    }

    /** The node's condition {@code GPUStackReady}, the controller's summary of the validator's. */
    static Optional<NodeCondition> stackReady(KubernetesClient client, String node) {
        Node n = client.nodes().withName(node).get();
        if (n.getStatus() == null || n.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return n.getStatus().getConditions().stream()
                .filter(c -> "GPUStackReady".equals(c.getType()))
                .findFirst();
    }

    /** The node's allocatable count of {@code resource}, 0 where it has none. */
    static int allocatable(KubernetesClient client, String node, String resource) {
        Quantity q = client.nodes().withName(node).get().getStatus().getAllocatable().get(resource);
        return q == null ? 0 : Integer.parseInt(q.getAmount());
    }

    /** The handlers the node's containerd reports over CRI (its loaded config). */
    static String criConfig(SimulatedNode n) {
        try (CriClient cri = new CriClient(n.containerd().socket())) {
            return cri.status().getInfoMap().get("config");
        }
    }

    // --- its operand pods

    /** The node's operand pod of {@code module} (label {@code app.kubernetes.io/name}). */
    static Optional<Pod> operandPod(SimulatedCluster cluster, String node, String module) {
        return cluster.operandPodsOn(node).stream()
                .filter(
                        p ->
                                module.equals(
                                        p.getMetadata().getLabels().get("app.kubernetes.io/name")))
                .findFirst();
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * A scrape of the node's exporter, where its pod runs: a pod IP (containers) or a mapped local
     * port (processes).
     */
    static String exporterMetrics(SimulatedCluster cluster, String node) throws Exception {
        String pod =
                operandPod(cluster, node, "dcgm-exporter")
                        .orElseThrow(() -> new AssertionError("no dcgm-exporter pod on " + node))
                        .getMetadata()
                        .getName();
        String hostPort =
                cluster.node(node)
                        .pods()
                        .endpoint(pod, 9400)
                        .orElseThrow(() -> new AssertionError(pod + " is not running"));
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://" + hostPort + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    /** The node's way through the steps {@code enabled}, from its labels and its operand pods. */
    static NodeProgress progress(SimulatedCluster cluster, String node, Set<String> enabled) {
        return NodeProgress.of(
                cluster.client().nodes().withName(node).get(),
                cluster.operandPodsOn(node),
                enabled);
    }

    /**
     * For a failure message: each operand pod on {@code nodes} that is not Ready, with its
     * containers' states and the last lines of its log (and of the run before, after a restart), so
     * that a scenario's timeout in CI says what held the nodes back.
     */
    static String whyNotReady(SimulatedCluster cluster, List<String> nodes) {
        StringBuilder sb = new StringBuilder();
        // logs come through the front, as kubectl reads them (the in-process client's server
        // has no log endpoint); one client for all the nodes
        try (KubernetesClient front = front(cluster)) {
            nodes.forEach(node -> whyNotReady(cluster, front, node, sb));
        }
        return sb.toString();
    }

    private static void whyNotReady(
            SimulatedCluster cluster, KubernetesClient front, String node, StringBuilder sb) {
        for (Pod p : cluster.operandPodsOn(node)) {
            if (Pods.isReady(p)) {
                continue;
            }
            String name = p.getMetadata().getName();
            sb.append("\n  not ready on ").append(node).append(": ").append(name);
            if (p.getStatus() != null && p.getStatus().getContainerStatuses() != null) {
                p.getStatus()
                        .getContainerStatuses()
                        .forEach(
                                c ->
                                        sb.append("\n    ")
                                                .append(c.getName())
                                                .append(" restarts=")
                                                .append(c.getRestartCount())
                                                .append(" state=")
                                                .append(Serialization.asJson(c.getState()))
                                                .append(" last=")
                                                .append(Serialization.asJson(c.getLastState())));
            }
            var pod = front.pods().inNamespace(SimulatedCluster.NAMESPACE).withName(name);
            appendLog(sb, "log", () -> pod.tailingLines(8).getLog());
            if (restarts(p) > 0) {
                appendLog(sb, "previous log", () -> pod.terminated().tailingLines(8).getLog());
            }
        }
    }

    private static void appendLog(
            StringBuilder sb, String what, java.util.function.Supplier<String> log) {
        try {
            sb.append("\n    ").append(what).append(':');
            log.get().lines().forEach(l -> sb.append("\n    | ").append(l));
        } catch (RuntimeException e) {
            sb.append(" (not read: ").append(e.getMessage()).append(')');
        }
    }

    /** The restarts of all the pod's containers, 0 before the kubelet reported any. */
    static int restarts(Pod p) {
        return p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                ? 0
                : p.getStatus().getContainerStatuses().stream()
                        .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                        .sum();
    }

    // --- kubectl

    /** A kubectl command's exit status and its output (stdout and stderr together). */
    record KubectlResult(int exit, String out) {}

    /** Runs the real kubectl against the cluster, for at most {@code seconds}. */
    static KubectlResult kubectlRun(SimulatedCluster cluster, int seconds, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of("kubectl"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("KUBECONFIG", cluster.api().kubeconfig().toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(
                    String.join(" ", cmd) + " did not finish in " + seconds + " s: " + out);
        }
        return new KubectlResult(p.exitValue(), out);
    }

    /** Runs kubectl (60 s at most); its output, or an AssertionError with it. */
    static String kubectl(SimulatedCluster cluster, String... args) throws Exception {
        return kubectlTimed(cluster, 60, args);
    }

    /** Runs kubectl for at most {@code seconds}; its output, or an AssertionError with it. */
    static String kubectlTimed(SimulatedCluster cluster, int seconds, String... args)
            throws Exception {
        KubectlResult r = kubectlRun(cluster, seconds, args);
        if (r.exit() != 0) {
            throw new AssertionError(
                    "kubectl " + String.join(" ", args) + " exited " + r.exit() + ": " + r.out());
        }
        return r.out();
    }

    /** A kubectl command that must fail (60 s at most); its output. */
    static String kubectlFails(SimulatedCluster cluster, String... args) throws Exception {
        KubectlResult r = kubectlRun(cluster, 60, args);
        assertThat(r.exit()).as("kubectl %s: %s", String.join(" ", args), r.out()).isNotZero();
        return r.out();
    }

    /**
     * Puts {@code content} in place of the executable {@code target} by a rename, as an installer
     * does: writing into it fails with "Text file busy" while a container create runs it.
     */
    static void replaceExecutable(Path target, byte[] content) throws IOException {
        Path next = target.resolveSibling(target.getFileName() + ".next");
        Files.write(next, content);
        Files.setPosixFilePermissions(next, Files.getPosixFilePermissions(target));
        Files.move(
                next, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
