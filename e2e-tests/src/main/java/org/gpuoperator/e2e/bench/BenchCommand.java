package org.gpuoperator.e2e.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests bench}: time from applying the simulated policy to every node ready, on fresh
 * simulated clusters of each size, split into time spent in the controller and time spent in the
 * agents.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description =
                "Time from policy to all nodes ready on simulated clusters, split controller/agents.")
public final class BenchCommand implements Callable<Integer> {

    @Option(
            names = "--nodes",
            split = ",",
            defaultValue = "3,10",
            description =
                    "Cluster sizes to measure, one fresh cluster each (default ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(
            names = "--profile",
            defaultValue = "h100-80gb-x8",
            description = "Simulated GPU profile.")
    String profile;

    @Option(
            names = "--timeout",
            defaultValue = "PT15M",
            description = "Per cluster size (ISO-8601).")
    Duration timeout;

    @Option(
            names = "--no-containerd",
            description = "Do not start a private containerd per node (process mode only).")
    boolean noContainerd;

    @Option(
            names = "--steps",
            description =
                    "Also print, per node, when each step's label was set and its pod turned Ready.")
    boolean steps;

    /** How the simulated kubelets run pods; both by default, so that one run compares them. */
    enum Mode {
        containers,
        processes
    }

    @Option(
            names = "--modes",
            split = ",",
            defaultValue = "containers,processes",
            description =
                    "Pod modes to measure, each on fresh clusters of every size (default ${DEFAULT-VALUE}).")
    List<Mode> modes;

    @Override
    public Integer call() throws Exception {
        Path repo = RepoRoot.find();
        System.out.printf(
                "%-11s %-6s %-10s %-26s %-26s %s%n",
                "pods as",
                "nodes",
                "all ready",
                "controller mean / max",
                "agents mean / max",
                "(seconds; per node, along its gate path)");
        for (Mode mode : modes) {
            for (int n : sizes) {
                Measured m = measure(repo, n, mode);
                if (m.result() == null) {
                    System.err.println(
                            "bench: " + n + " nodes (" + mode + ") not ready within " + timeout);
                    return 1;
                }
                if (!m.mode().equals(mode.name())) {
                    System.err.println(
                            "bench: asked for "
                                    + mode
                                    + ", the cluster ran pods as "
                                    + m.mode()
                                    + " ("
                                    + m.why()
                                    + ")");
                    return 1;
                }
                Result r = m.result();
                System.out.printf(
                        "%-11s %-6d %-10.1f %-26s %-26s%n",
                        mode,
                        n,
                        r.allReadyMs / 1000.0,
                        String.format(
                                "%.1f / %.1f",
                                r.controllerMeanMs / 1000.0, r.controllerMaxMs / 1000.0),
                        String.format(
                                "%.1f / %.1f", r.agentsMeanMs / 1000.0, r.agentsMaxMs / 1000.0));
            }
        }
        return 0;
    }

    record Result(
            long allReadyMs,
            double controllerMeanMs,
            long controllerMaxMs,
            double agentsMeanMs,
            long agentsMaxMs) {}

    /**
     * @param mode how the cluster really ran its pods; {@code why} its first event, which says so
     */
    record Measured(Result result, String mode, String why) {}

    private Measured measure(Path repo, int n, Mode mode) throws Exception {
        List<String> first = new java.util.ArrayList<>();
        Consumer<String> quiet =
                line -> {
                    if (first.isEmpty()) {
                        first.add(line);
                    }
                };
        try (SimulatedCluster cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                repo,
                                !noContainerd,
                                mode == Mode.containers,
                                ControllerLauncher::start,
                                quiet))) {
            String actual =
                    cluster.podsAsContainers() ? Mode.containers.name() : Mode.processes.name();
            return new Measured(
                    timeToReady(cluster, repo, n), actual, first.isEmpty() ? "" : first.getFirst());
        }
    }

    private Result timeToReady(SimulatedCluster cluster, Path repo, int n) throws Exception {
        List<String> names = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
            names.add(cluster.addGpuNode("gpu-node-" + i).name());
        }
        cluster.startController();
        GenericKubernetesResource cp =
                Serialization.unmarshal(
                        Files.readString(
                                repo.resolve("deploy/samples/clusterpolicy-simulated.yaml")),
                        GenericKubernetesResource.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> sim =
                (Map<String, Object>)
                        ((Map<String, Object>) cp.getAdditionalProperties().get("spec"))
                                .get("simulation");
        sim.put("profile", profile);
        long t0 = System.currentTimeMillis();
        ConvergenceTimeline timeline = new ConvergenceTimeline(t0);
        try (SharedIndexInformer<Node> nodes =
                        cluster.client()
                                .nodes()
                                .inform(
                                        handler(
                                                node -> {
                                                    var labels = node.getMetadata().getLabels();
                                                    for (String step :
                                                            NodeProgress.STEPS.keySet()) {
                                                        if (labels != null
                                                                && "true"
                                                                        .equals(
                                                                                labels.get(
                                                                                        "nvidia.com/gpu.deploy."
                                                                                                + step))) {
                                                            timeline.labelled(
                                                                    node.getMetadata().getName(),
                                                                    step,
                                                                    System.currentTimeMillis());
                                                        }
                                                    }
                                                }));
                SharedIndexInformer<Pod> pods =
                        cluster.client()
                                .pods()
                                .inNamespace(SimulatedCluster.NAMESPACE)
                                .inform(handler(pod -> recordReady(timeline, pod)))) {
            cluster.client()
                    .genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                var splits = timeline.splits(names);
                if (splits.size() == n) {
                    if (steps) {
                        names.forEach(node -> System.out.println(timeline.steps(node)));
                    }
                    var values = splits.values();
                    return new Result(
                            values.stream()
                                    .mapToLong(ConvergenceTimeline.NodeSplit::totalMs)
                                    .max()
                                    .orElse(0),
                            values.stream()
                                    .mapToLong(ConvergenceTimeline.NodeSplit::controllerMs)
                                    .average()
                                    .orElse(0),
                            values.stream()
                                    .mapToLong(ConvergenceTimeline.NodeSplit::controllerMs)
                                    .max()
                                    .orElse(0),
                            values.stream()
                                    .mapToLong(ConvergenceTimeline.NodeSplit::agentsMs)
                                    .average()
                                    .orElse(0),
                            values.stream()
                                    .mapToLong(ConvergenceTimeline.NodeSplit::agentsMs)
                                    .max()
                                    .orElse(0));
                }
                Thread.sleep(100);
            }
            return null;
        }
    }

    private static void recordReady(ConvergenceTimeline timeline, Pod pod) {
        boolean ready = Pods.isReady(pod);
        String module =
                pod.getMetadata().getLabels() == null
                        ? null
                        : pod.getMetadata().getLabels().get("app.kubernetes.io/name");
        if (!ready || module == null || pod.getSpec().getNodeName() == null) {
            return;
        }
        NodeProgress.STEPS.forEach(
                (step, m) -> {
                    if (m.equals(module)) {
                        timeline.ready(
                                pod.getSpec().getNodeName(), step, System.currentTimeMillis());
                    }
                });
    }

    /** An informer handler that passes every added or updated object to {@code onChange}. */
    static <T> ResourceEventHandler<T> handler(Consumer<T> onChange) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                onChange.accept(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                onChange.accept(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {}
        };
    }
}
