package org.gpuoperator.e2e.bench;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests bench-config-switch}: on a simulated node running the whole stack with pods as
 * containers, the time from setting the node label {@code nvidia.com/device-plugin.config} to a
 * time-slicing config (and from removing it) until the node's allocatable {@code nvidia.com/gpu} is
 * the new count: the agents' node watch, the device plugin's reload, its ListAndWatch and the
 * kubelet's node status.
 */
@Command(
        name = "bench-config-switch",
        mixinStandardHelpOptions = true,
        description =
                "Time from the nvidia.com/device-plugin.config label change to the node's new"
                        + " allocatable nvidia.com/gpu.")
public final class ConfigSwitchBench implements Callable<Integer> {

    static final String LABEL = "nvidia.com/device-plugin.config";
    static final String GPU = "nvidia.com/gpu";
    static final String NODE = "gpu-node-1";

    @Option(names = "--rounds", defaultValue = "10", description = "Switches each way.")
    int rounds;

    @Option(
            names = "--replicas",
            defaultValue = "4",
            description = "Time-slicing replicas of the config switched to.")
    int replicas;

    @Option(
            names = "--timeout",
            defaultValue = "PT2M",
            description = "Per switch, and for the stack to come up (ISO-8601).")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
        Path repo = RepoRoot.find();
        try (SimulatedCluster cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                repo, true, true, ControllerLauncher::start, line -> {}))) {
            if (!cluster.podsAsContainers()) {
                System.err.println(
                        "bench-config-switch: the ConfigMap volume needs pods as containers,"
                                + " which this machine cannot run");
                return 1;
            }
            KubernetesClient client = cluster.client();
            cluster.addGpuNode(NODE);
            cluster.startController();
            client.configMaps()
                    .inNamespace(SimulatedCluster.NAMESPACE)
                    .resource(
                            new ConfigMapBuilder()
                                    .withNewMetadata()
                                    .withName("plugin-config")
                                    .withNamespace(SimulatedCluster.NAMESPACE)
                                    .endMetadata()
                                    .addToData("shared", timeSlicing(replicas))
                                    .build())
                    .create();
            GenericKubernetesResource cp = simulatedSample(repo);
            Map<String, Object> spec = spec(cp);
            spec.put("devicePlugin", Map.of("config", Map.of("name", "plugin-config")));
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();

            AtomicReference<Integer> allocatable = new AtomicReference<>(0);
            try (SharedIndexInformer<Node> nodes =
                    client.nodes()
                            .withName(NODE)
                            .inform(
                                    BenchCommand.handler(
                                            n -> allocatable.set(allocatableGpus(n))))) {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (!ready(cluster) || allocatable.get() == 0) {
                    if (System.nanoTime() > deadline) {
                        System.err.println("bench-config-switch: the stack is not ready");
                        return 1;
                    }
                    Thread.sleep(200);
                }
                int whole = allocatable.get();
                List<Long> on = new ArrayList<>();
                List<Long> off = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    Long t = switchTo(client, "shared", whole * replicas, allocatable);
                    Long back = t == null ? null : switchTo(client, null, whole, allocatable);
                    if (t == null || back == null) {
                        System.err.println(
                                "bench-config-switch: no new allocatable within " + timeout);
                        return 1;
                    }
                    on.add(t);
                    off.add(back);
                }
                System.out.printf(
                        "label change to allocatable %s (%d GPUs, %d rounds, ms):%n",
                        GPU, whole, rounds);
                System.out.println("  to " + replicas + " replicas: " + summary(on));
                System.out.println("  back to none:  " + summary(off));
                return 0;
            }
        }
    }

    /** Sets (or with null removes) the label; the ms until the allocatable is {@code expected}. */
    private Long switchTo(
            KubernetesClient client,
            String config,
            int expected,
            AtomicReference<Integer> allocatable)
            throws InterruptedException {
        long t0 = System.nanoTime();
        client.nodes()
                .withName(NODE)
                .edit(
                        n -> {
                            Map<String, String> l = new HashMap<>(n.getMetadata().getLabels());
                            if (config == null) {
                                l.remove(LABEL);
                            } else {
                                l.put(LABEL, config);
                            }
                            n.getMetadata().setLabels(l);
                            return n;
                        });
        long deadline = t0 + timeout.toNanos();
        while (allocatable.get() != expected) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(5);
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** min / median / max of the figures. Pure. */
    static String summary(List<Long> ms) {
        List<Long> sorted = ms.stream().sorted().toList();
        long median =
                sorted.size() % 2 == 1
                        ? sorted.get(sorted.size() / 2)
                        : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        return "min "
                + sorted.getFirst()
                + " / median "
                + median
                + " / max "
                + sorted.getLast()
                + " "
                + ms;
    }

    /** The repository's simulated sample policy, to edit before it is created. */
    static GenericKubernetesResource simulatedSample(Path repo) throws java.io.IOException {
        return Serialization.unmarshal(
                Files.readString(repo.resolve("deploy/samples/clusterpolicy-simulated.yaml")),
                GenericKubernetesResource.class);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> spec(GenericKubernetesResource policy) {
        return (Map<String, Object>) policy.getAdditionalProperties().get("spec");
    }

    /** Whether the bench node's operand pipeline is Ready. */
    static boolean ready(SimulatedCluster cluster) {
        Node n = cluster.client().nodes().withName(NODE).get();
        return n != null
                && NodeProgress.of(n, cluster.operandPodsOn(NODE), NodeProgress.STEPS.keySet())
                        .ready();
    }

    private static int allocatableGpus(Node n) {
        if (n.getStatus() == null || n.getStatus().getAllocatable() == null) {
            return 0;
        }
        Quantity q = n.getStatus().getAllocatable().get(GPU);
        return q == null ? 0 : Integer.parseInt(q.getAmount());
    }

    private static String timeSlicing(int replicas) {
        return "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n"
                + "      replicas: "
                + replicas
                + "\n";
    }
}
