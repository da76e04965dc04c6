package org.gpuoperator.e2e.simulate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.HostDriver;
import org.gpuoperator.e2e.node.SimulatedNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests simulate}: the whole operator on one machine. Starts a simulated cluster,
 * applies the simulated ClusterPolicy, prints each node's progress through the gates as it happens,
 * then a summary; keeps running until Ctrl-C (or exits once ready with {@code --exit-when-ready}),
 * and cleans up every process and temp dir.
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        description = "Run the operator on a simulated cluster on this machine, no Docker needed.")
public final class SimulateCommand implements Callable<Integer> {

    @Option(
            names = "--nodes",
            defaultValue = "3",
            description = "Simulated GPU nodes (default ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--profile",
            defaultValue = "h100-80gb-x8",
            description = "Simulated GPU profile of every node (default ${DEFAULT-VALUE}).")
    String profile;

    @Option(
            names = "--exit-when-ready",
            description = "Exit 0 once every node is ready, after the summary.")
    boolean exitWhenReady;

    @Option(
            names = "--timeout",
            defaultValue = "PT5M",
            description =
                    "How long to wait for all nodes to be ready, ISO-8601 (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(
            names = "--policy",
            description =
                    "ClusterPolicy YAML (default: deploy/samples/clusterpolicy-simulated.yaml).")
    Path policy;

    @Option(
            names = "--repo",
            description = "Repository root (default: found from the working directory).")
    Path repo;

    @Option(
            names = "--host-driver",
            paramLabel = "VERSION",
            description =
                    "Give every node a pre-installed NVIDIA driver of this version (as managed"
                            + " Kubernetes and DGX nodes have), for a policy with driver.enabled:"
                            + " false.")
    String hostDriver;

    @Option(names = "--no-containerd", description = "Do not start a private containerd per node.")
    boolean noContainerd;

    @Option(
            names = "--keep-work-dir",
            description = "Keep the temp dir (host roots, agent logs) after exit.")
    boolean keepWorkDir;

    private final PrintStream out = System.out;

    @Override
    public Integer call() throws Exception {
        Path root = repo != null ? repo : RepoRoot.find();
        List<String> missing = RepoRoot.missingJars(root);
        if (!missing.isEmpty()) {
            System.err.println(
                    "simulate: agent jars are missing ("
                            + String.join(", ", missing)
                            + "); build first: ./mvnw install -DskipTests");
            return 2;
        }
        if (keepWorkDir) {
            System.setProperty(SimulatedCluster.KEEP_PROPERTY, "true");
        }
        Path policyFile =
                policy != null
                        ? policy
                        : root.resolve("deploy/samples/clusterpolicy-simulated.yaml");
        Instant t0 = Instant.now();
        CountDownLatch stop = new CountDownLatch(1);
        SimulatedCluster cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                root,
                                !noContainerd,
                                ControllerLauncher::start,
                                line -> {
                                    // how pods run (containers, or processes and why) is always
                                    // said, once, at start
                                    if (keepWorkDir
                                            || line.startsWith(SimulatedCluster.POD_MODE_EVENT)) {
                                        out.println(keepWorkDir ? "  " + line : line);
                                    }
                                }));
        Thread hook =
                new Thread(
                        () -> {
                            out.println(
                                    "shutting down: stopping agents, node services and the API server...");
                            cluster.close();
                            stop.countDown();
                        },
                        "simulate-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        out.printf(
                "API server %s; for kubectl:%n%s%n",
                cluster.api().url(), kubeconfigExport(cluster.api().kubeconfig()));
        for (int i = 1; i <= nodes; i++) {
            SimulatedNode n = cluster.addGpuNode("gpu-node-" + i);
            if (hostDriver != null) {
                HostDriver.install(n.root(), hostDriver, profile);
            }
            out.printf(
                    "node %s: host root %s%s%s%n",
                    n.name(),
                    n.root(),
                    hostDriver == null ? "" : ", pre-installed driver " + hostDriver,
                    n.containerd() == null
                            ? " (no containerd installed: runtime config not verified)"
                            : "");
        }
        cluster.startController();
        KubernetesClient client = cluster.client();
        GenericKubernetesResource cp =
                Serialization.unmarshal(
                        Files.readString(policyFile), GenericKubernetesResource.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) cp.getAdditionalProperties().get("spec");
        @SuppressWarnings("unchecked")
        Map<String, Object> sim =
                (Map<String, Object>) spec.computeIfAbsent("simulation", k -> new HashMap<>());
        sim.put("enabled", true);
        sim.put("profile", profile);
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();
        out.printf(
                "applied ClusterPolicy %s (%s, profile %s)%n",
                cp.getMetadata().getName(), policyFile, profile);

        Set<String> enabled = new LinkedHashSet<>(NodeProgress.STEPS.keySet());
        Map<String, String> shown = new HashMap<>();
        Instant deadline = t0.plus(timeout);
        List<NodeProgress> progress = List.of();
        while (Instant.now().isBefore(deadline)) {
            progress = progress(cluster, enabled);
            for (NodeProgress p : progress) {
                String line = p.describe();
                if (!line.equals(shown.put(p.node(), line))) {
                    out.printf(
                            "[%5.1fs] %s%n",
                            Duration.between(t0, Instant.now()).toMillis() / 1000.0, line);
                }
            }
            if (!progress.isEmpty() && progress.stream().allMatch(NodeProgress::ready)) {
                break;
            }
            Thread.sleep(300);
        }
        boolean ready = !progress.isEmpty() && progress.stream().allMatch(NodeProgress::ready);
        if (!ready) {
            System.err.println("simulate: not ready after " + timeout + ":");
            progress.stream()
                    .filter(p -> !p.ready())
                    .forEach(p -> System.err.println("  " + p.node() + " waits at " + p.next()));
            System.err.println("  agent logs: " + cluster.workDir() + "/<node>/var/log/pods/");
            return 1;
        }
        summary(cluster, Duration.between(t0, Instant.now()));
        if (exitWhenReady) {
            return 0; // the shutdown hook cleans up
        }
        out.println(
                kubeconfigExport(cluster.api().kubeconfig())
                        + "   # then: kubectl get nodes,pods -A");
        out.println("running; press Ctrl-C to stop and clean up");
        stop.await();
        return 0;
    }

    /** A line to paste into a shell; the path is quoted only when it needs to be. */
    static String kubeconfigExport(Path kubeconfig) {
        String p = kubeconfig.toAbsolutePath().toString();
        return "export KUBECONFIG="
                + (p.matches("[A-Za-z0-9_./+-]+") ? p : "'" + p.replace("'", "'\\''") + "'");
    }

    private static List<NodeProgress> progress(SimulatedCluster cluster, Set<String> enabled) {
        List<NodeProgress> out = new ArrayList<>();
        for (SimulatedNode n : cluster.gpuNodes()) {
            Node node = cluster.client().nodes().withName(n.name()).get();
            if (node != null) {
                out.add(NodeProgress.of(node, cluster.operandPodsOn(n.name()), enabled));
            }
        }
        return out;
    }

    private void summary(SimulatedCluster cluster, Duration took) {
        out.printf(
                "%nall %d nodes ready in %.1f s%n%n",
                cluster.gpuNodes().size(), took.toMillis() / 1000.0);
        out.printf("%-12s %-5s %-7s %s%n", "NODE", "GPUS", "LABELS", "METRICS");
        for (SimulatedNode n : cluster.gpuNodes()) {
            Node node = cluster.client().nodes().withName(n.name()).get();
            var gpus = node.getStatus().getAllocatable().get(SimulatedNode.GPU_RESOURCE);
            long labels =
                    node.getMetadata().getLabels().keySet().stream()
                            .filter(k -> k.startsWith("nvidia.com/"))
                            .count();
            // the exporter's pod IP (containers) or mapped local port (processes)
            String metrics =
                    cluster.podsOn(n.name()).stream()
                            .filter(
                                    p ->
                                            "dcgm-exporter"
                                                    .equals(
                                                            p.getMetadata()
                                                                    .getLabels()
                                                                    .get("app.kubernetes.io/name")))
                            .flatMap(
                                    p ->
                                            n
                                                    .pods()
                                                    .endpoint(p.getMetadata().getName(), 9400)
                                                    .stream())
                            .map(hostPort -> "http://" + hostPort + "/metrics")
                            .findFirst()
                            .orElse("-");
            out.printf(
                    "%-12s %-5s %-7d %s%n",
                    n.name(), gpus == null ? "0" : gpus.getAmount(), labels, metrics);
        }
        out.println();
    }
}
