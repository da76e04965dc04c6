package org.gpuoperator.e2e.simulate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
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
import org.gpuoperator.e2e.node.LeftoverHost;
import org.gpuoperator.e2e.node.LinuxLeftoverHost;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.gpuoperator.e2e.node.StartupCleanup;
import org.gpuoperator.node.agent.Durations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests simulate}: the whole operator on one machine. Starts a simulated cluster,
 * applies the simulated ClusterPolicy, prints each node's progress through the gates as it happens,
 * then a summary; keeps running until Ctrl-C (or exits once ready with {@code --exit-when-ready}),
 * and cleans up every process and temp dir. First it removes what killed runs left ({@link
 * StartupCleanup}), or refuses to start when it cannot.
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
            defaultValue = "5m",
            converter = Durations.Converter.class,
            description =
                    "How long to wait for all nodes to be ready, as the agents' flags take it:"
                            + " 300, 4m, 1h30m or PT5M (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(
            names = "--clean",
            description =
                    "Only remove what killed runs left (containerd, shims and containers,"
                            + " bridges, mounts, temp dirs), then exit. Every run does this first.")
    boolean cleanOnly;

    @Option(
            names = "--policy",
            description =
                    "ClusterPolicy YAML, applied with deploy/ instead of the Helm chart (default:"
                            + " the chart's policy, deploy/samples/clusterpolicy-simulated.yaml).")
    Path policy;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description =
                    "A value of the Helm chart deploy/helm/gpu-operator, as helm install takes it"
                            + " (repeatable), e.g. --set driver.enabled=false.")
    List<String> sets = new ArrayList<>();

    @Option(
            names = {"-f", "--values"},
            paramLabel = "FILE",
            description =
                    "A values file of the Helm chart, as helm install -f takes it (repeatable).")
    List<Path> valuesFiles = new ArrayList<>();

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
    private final PrintStream err = System.err;

    @Override
    public Integer call() throws Exception {
        Integer refused = cleanUpKilledRuns(new LinuxLeftoverHost());
        if (refused != null || cleanOnly) {
            return refused != null ? refused : 0;
        }
        Path root = repo != null ? repo : RepoRoot.find();
        List<String> missing = RepoRoot.missingJars(root);
        if (!missing.isEmpty()) {
            System.err.println(
                    "simulate: agent jars are missing ("
                            + String.join(", ", missing)
                            + "); build first: ./mvnw package -DskipTests");
            return 2;
        }
        if (keepWorkDir) {
            System.setProperty(SimulatedCluster.KEEP_PROPERTY, "true");
        }
        // As an admin installs it: the chart's rendered output with --set and -f (rendered before
        // anything starts, so that a mistyped value costs nothing), or deploy/ and --policy.
        String rendered = null;
        if (policy != null && (!sets.isEmpty() || !valuesFiles.isEmpty())) {
            err.println(
                    "simulate: --policy replaces the chart's ClusterPolicy; give either --policy"
                            + " or --set/-f");
            return 2;
        }
        if (policy == null) {
            try {
                rendered = ChartInstall.of(root, valuesFiles, sets).renderApart(profile);
            } catch (IllegalArgumentException e) {
                err.println("simulate: " + e.getMessage());
                return 2;
            }
        }
        Path policyFile = policy;
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
        // as an admin installs it: the operator's Deployment, its pod on a control-plane node
        Map<String, Object> appliedSpec = Map.of();
        if (rendered != null) {
            for (var o : cluster.installChart(rendered)) {
                if (o.getKind().equals("ClusterPolicy")) {
                    appliedSpec = specOf(o);
                    out.printf(
                            "applied ClusterPolicy %s (chart deploy/helm/gpu-operator%s, profile"
                                    + " %s)%n",
                            o.getMetadata().getName(),
                            sets.isEmpty() && valuesFiles.isEmpty() ? "" : " with your values",
                            profile);
                }
            }
        } else {
            cluster.installOperator();
            KubernetesClient client = cluster.client();
            GenericKubernetesResource cp =
                    Serialization.unmarshal(
                            Files.readString(policyFile), GenericKubernetesResource.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> spec =
                    (Map<String, Object>) cp.getAdditionalProperties().get("spec");
            @SuppressWarnings("unchecked")
            Map<String, Object> sim =
                    (Map<String, Object>) spec.computeIfAbsent("simulation", k -> new HashMap<>());
            sim.put("enabled", true);
            sim.put("profile", profile);
            appliedSpec = spec;
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();
            out.printf(
                    "applied ClusterPolicy %s (%s, profile %s)%n",
                    cp.getMetadata().getName(), policyFile, profile);
        }

        Set<String> enabled = enabledSteps(appliedSpec);
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
            System.err.println("simulate: not ready after " + Durations.format(timeout) + ":");
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

    /**
     * Removes what killed runs left and says so in one line; returns the exit code when it cannot
     * (said with the command that cleans up), else null.
     */
    Integer cleanUpKilledRuns(LeftoverHost host) throws IOException, InterruptedException {
        StartupCleanup.Outcome o = StartupCleanup.run(host, Duration.ofSeconds(15));
        if (o.nothingLeft()) {
            if (cleanOnly) {
                out.println("nothing left by killed runs");
            }
            return null;
        }
        if (o.failures().isEmpty()) {
            out.println(o.message(host.privileged()));
            return null;
        }
        err.println("simulate: " + o.message(host.privileged()));
        return 2;
    }

    /** The spec key of each step's operand in a ClusterPolicy. */
    private static final Map<String, String> STEP_FIELDS =
            Map.of(
                    "driver", "driver",
                    "container-toolkit", "toolkit",
                    "device-plugin", "devicePlugin",
                    "gpu-feature-discovery", "gfd",
                    "dcgm-exporter", "dcgmExporter");

    /**
     * The steps a node must pass under this policy spec: all but those whose operand it turns off
     * ({@code <operand>.enabled: false}), so that e.g. {@code --set gfd.enabled=false} can get
     * ready.
     */
    static Set<String> enabledSteps(Map<String, Object> spec) {
        Set<String> enabled = new LinkedHashSet<>();
        for (String step : NodeProgress.STEPS.keySet()) {
            Object operand = spec.get(STEP_FIELDS.get(step));
            if (!(operand instanceof Map<?, ?> m && Boolean.FALSE.equals(m.get("enabled")))) {
                enabled.add(step);
            }
        }
        return enabled;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> specOf(io.fabric8.kubernetes.api.model.HasMetadata policy) {
        GenericKubernetesResource g =
                Serialization.unmarshal(
                        Serialization.asYaml(policy), GenericKubernetesResource.class);
        Object spec = g.getAdditionalProperties().get("spec");
        return spec instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
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
