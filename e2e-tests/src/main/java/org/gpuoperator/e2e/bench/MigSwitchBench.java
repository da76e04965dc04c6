package org.gpuoperator.e2e.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests bench-mig-switch}: on a simulated 8 x A100 40GB node running the whole stack
 * with pods as containers under {@code mig.strategy: mixed}, the time from setting the node label
 * {@code nvidia.com/mig.config} to {@code all-1g.5gb} (and back to {@code all-disabled}) until the
 * node's allocatable is the new layout's: the MIG manager's node watch, the GPU clients paused and
 * gone, the repartition, the toolkit's CDI rewrite, the clients back, the device plugin's
 * registration and the kubelet's node status.
 */
@Command(
        name = "bench-mig-switch",
        mixinStandardHelpOptions = true,
        description =
                "Time from the nvidia.com/mig.config label change to the node's new allocatable"
                        + " (all-1g.5gb: 56 x nvidia.com/mig-1g.5gb; all-disabled: 8 x nvidia.com/gpu).")
public final class MigSwitchBench implements Callable<Integer> {

    static final String LABEL = "nvidia.com/mig.config";
    static final String NODE = ConfigSwitchBench.NODE;
    static final String SMALL = "nvidia.com/mig-1g.5gb";
    static final String WHOLE = "nvidia.com/gpu";

    @Option(names = "--rounds", defaultValue = "5", description = "Switches each way.")
    int rounds;

    @Option(
            names = "--timeout",
            defaultValue = "PT3M",
            description = "Per switch, and for the stack to come up (ISO-8601).")
    Duration timeout;

    /** The node's allocatable MIG and whole-GPU counts, as one figure pair. */
    record Allocatable(int small, int whole) {}

    @Override
    public Integer call() throws Exception {
        Path repo = RepoRoot.find();
        try (SimulatedCluster cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                repo, true, true, ControllerLauncher::start, line -> {}))) {
            if (!cluster.podsAsContainers()) {
                System.err.println(
                        "bench-mig-switch: the MIG manager's ConfigMap needs pods as containers,"
                                + " which this machine cannot run");
                return 1;
            }
            KubernetesClient client = cluster.client();
            cluster.addGpuNode(NODE);
            cluster.startController();
            GenericKubernetesResource cp = ConfigSwitchBench.simulatedSample(repo);
            Map<String, Object> spec = ConfigSwitchBench.spec(cp);
            PolicySpecEdits.section(spec, "simulation").put("profile", "a100-40gb-x8");
            PolicySpecEdits.section(spec, "mig").put("strategy", "mixed");
            PolicySpecEdits.section(spec, "migManager").put("enabled", true);
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();

            AtomicReference<Allocatable> now = new AtomicReference<>(new Allocatable(0, 0));
            try (SharedIndexInformer<Node> nodes =
                    client.nodes()
                            .withName(NODE)
                            .inform(BenchCommand.handler(n -> now.set(allocatable(n))))) {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (!ConfigSwitchBench.ready(cluster)
                        || now.get().whole() != 8
                        || !migManagerReady(cluster)) {
                    if (System.nanoTime() > deadline) {
                        System.err.println("bench-mig-switch: the stack is not ready");
                        return 1;
                    }
                    Thread.sleep(200);
                }
                List<Long> on = new ArrayList<>();
                List<Long> off = new ArrayList<>();
                for (int i = 0; i < rounds; i++) {
                    Long t = switchTo(client, "all-1g.5gb", new Allocatable(56, 0), now);
                    Long back =
                            t == null
                                    ? null
                                    : switchTo(client, "all-disabled", new Allocatable(0, 8), now);
                    if (t == null || back == null) {
                        System.err.println(
                                "bench-mig-switch: no new allocatable within "
                                        + timeout
                                        + " (now "
                                        + now.get()
                                        + ")");
                        return 1;
                    }
                    on.add(t);
                    off.add(back);
                }
                System.out.printf(
                        "label change to allocatable (8 x A100 40GB, mixed, %d rounds, ms):%n",
                        rounds);
                System.out.println(
                        "  to all-1g.5gb (56 MIG devices): " + ConfigSwitchBench.summary(on));
                System.out.println(
                        "  to all-disabled (8 GPUs):       " + ConfigSwitchBench.summary(off));
                return 0;
            }
        }
    }

    /** Sets the label; the ms until the allocatable is {@code expected}. */
    private Long switchTo(
            KubernetesClient client,
            String config,
            Allocatable expected,
            AtomicReference<Allocatable> now)
            throws InterruptedException {
        long t0 = System.nanoTime();
        client.nodes()
                .withName(NODE)
                .edit(
                        n -> {
                            n.getMetadata().getLabels().put(LABEL, config);
                            return n;
                        });
        long deadline = t0 + timeout.toNanos();
        while (!now.get().equals(expected)) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(5);
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static boolean migManagerReady(SimulatedCluster cluster) {
        return cluster.operandPodsOn(NODE).stream()
                .anyMatch(
                        p ->
                                "mig-manager"
                                                .equals(
                                                        p.getMetadata()
                                                                .getLabels()
                                                                .get("app.kubernetes.io/name"))
                                        && Pods.isReady(p));
    }

    private static Allocatable allocatable(Node n) {
        if (n.getStatus() == null || n.getStatus().getAllocatable() == null) {
            return new Allocatable(0, 0);
        }
        Map<String, Quantity> a = n.getStatus().getAllocatable();
        return new Allocatable(count(a.get(SMALL)), count(a.get(WHOLE)));
    }

    private static int count(Quantity q) {
        return q == null ? 0 : Integer.parseInt(q.getAmount());
    }
}
