package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.controller.reconcile.ControllerSerialization;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeState;

/**
 * Driver upgrade benchmark (not a test): N simulated GPU nodes on the indexed CRUD mock, the
 * controller in-process. The policy converges first (every operand pod Ready, every node {@code
 * upgrade-done}, a GPU workload on each node); then the driver version changes with autoUpgrade on,
 * {@code maxParallelUpgrades} N/10 and {@code maxUnavailable} 10%. The benchmark plays every
 * operand's DaemonSet controller (a deleted operand pod comes back from the DaemonSet's current
 * template, Ready: the new driver for the driver's OnDelete, a restarted validator; the operands
 * the upgrade pauses leave the node when their deploy label stops being {@code true} and come back
 * when it is again), the kubelet (the mock deletes an evicted pod at once) and the validator
 * (NotReady while its node's driver is replaced, Ready again after the new driver pod started).
 * Prints the rollout's time until every node is {@code upgrade-done} and schedulable, the
 * controller's writes per node upgrade by kind, the most nodes upgrading at once, the controller's
 * heap and CPU. Usage: UpgradeBenchmark [nodes...] (default 1000).
 */
public final class UpgradeBenchmark {

    private static final String NS = "gpu-operator";
    private static final String SIM = "gpuoperator.org/simulated-gpu";
    private static final String WORK = "work";
    private static final String OLD = "550.54.15";
    private static final String NEW = "570.172.08";

    /**
     * The benchmark's own requests carry this User-Agent, so the controller's can be told apart.
     */
    private static final String BENCH_AGENT = "upgrade-benchmark";

    /** The operands in gate order: each one's pods are created once its label is on every node. */
    private static final List<Operand> GATES =
            List.of(
                    Operand.DRIVER,
                    Operand.CONTAINER_TOOLKIT,
                    Operand.DEVICE_PLUGIN,
                    Operand.GPU_FEATURE_DISCOVERY,
                    Operand.DCGM_EXPORTER,
                    Operand.VALIDATOR);

    public static void main(String[] args) throws Exception {
        int[] sizes =
                args.length == 0
                        ? new int[] {1000}
                        : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        for (int n : sizes) {
            run(n);
        }
        System.exit(0);
    }

    private static void run(int n) throws Exception {
        int maxParallel = Math.max(1, n / 10);
        String maxUnavailable = "10%";
        KubernetesMockServer server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new IndexedCrudDispatcher(),
                        false);
        server.init();
        var base = server.createClient().getConfiguration();
        try (KubernetesClient controllerClient =
                        client(
                                new ConfigBuilder(base).build(),
                                ControllerSerialization.clientBuilder());
                KubernetesClient bench =
                        client(
                                new ConfigBuilder(base)
                                        .withUserAgent(BENCH_AGENT)
                                        .withRequestTimeout(60_000)
                                        .build())) {
            try (InputStream in =
                    ClusterPolicy.class.getResourceAsStream(
                            "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
                bench.apiextensions().v1().customResourceDefinitions().load(in).create();
            }
            for (int i = 0; i < n; i++) {
                readyNode(bench, "gpu-" + i);
            }
            Requests requests = new Requests(server);
            Cluster cluster = new Cluster(bench, n);
            waitFor("nodes seen", () -> cluster.nodes() == n, 120);
            long heapBefore = usedHeapAfterGc();

            ControllerRuntime runtime =
                    ControllerRuntime.start(
                            controllerClient, ControllerRuntime.Config.forTests(NS));
            long t = System.nanoTime();
            bench.resource(policy(maxParallel, maxUnavailable)).create();
            for (Operand operand : GATES) {
                waitFor(operand + " label on all", () -> cluster.labelled(operand) == n, 600);
                DaemonSet ds = daemonSet(bench, operand);
                for (int i = 0; i < n; i++) {
                    bench.pods().inNamespace(NS).resource(readyPod(ds, "gpu-" + i)).create();
                }
            }
            waitFor(
                    "every node upgrade-done",
                    () -> cluster.inState(UpgradeState.UPGRADE_DONE) == n,
                    600);
            waitFor("policy ready", () -> policyState(bench) == State.READY, 600);
            double converged = seconds(t);
            for (int i = 0; i < n; i++) {
                bench.pods().inNamespace(WORK).resource(gpuWorkload("gpu-" + i)).create();
            }
            Thread.sleep(3000);
            requests.take();

            long reconciliationsBefore = runtime.metrics().reconciliations();
            double[] cpuBefore = cpuSeconds();
            cluster.rolloutStarted();
            long t0 = System.nanoTime();
            bench.resources(ClusterPolicy.class)
                    .withName("cluster-policy")
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            "[{\"op\":\"replace\",\"path\":\"/spec/driver/version\",\"value\":\""
                                    + NEW
                                    + "\"}]");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(900, 2L * n));
            long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (cluster.finished() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "rollout not finished: " + cluster.progress() + "; " + requests.peek());
                }
                if (System.nanoTime() > nextReport) {
                    System.out.printf("  %.0f s: %s%n", seconds(t0), cluster.progress());
                    nextReport += TimeUnit.SECONDS.toNanos(15);
                }
                Thread.sleep(100);
            }
            double rollout = seconds(t0);
            double[] cpu = cpuSeconds();
            long reconciliations = runtime.metrics().reconciliations() - reconciliationsBefore;
            Thread.sleep(3000); // writes that trail the last uncordon (the status) count too
            Requests.Counts writes = requests.take();
            int driverPodsReplaced = cluster.replaced.get();
            long heapEnd = usedHeapAfterGc();
            // -Dbench.pauseBeforeClose=S: time to take a heap histogram (jcmd PID
            // GC.class_histogram)
            long pause = Long.getLong("bench.pauseBeforeClose", 0L);
            if (pause > 0) {
                System.out.println("  pausing " + pause + " s before closing the controller");
                System.out.flush();
                Thread.sleep(pause * 1000);
            }
            runtime.close();
            long heapAfterClose = usedHeapAfterGc();

            int controllerWrites = writes.total(false);
            System.out.printf(
                    "%nDriver upgrade, %d nodes: maxParallelUpgrades %d (N/10), maxUnavailable %s,"
                            + " default podDeletion, drain off%n",
                    n, maxParallel, maxUnavailable);
            System.out.printf(
                    "  converge (all gates, every node upgrade-done): %.1f s%n", converged);
            System.out.printf(
                    "  rollout (version change -> every node upgrade-done and schedulable): %.1f s%n",
                    rollout);
            System.out.printf(
                    "  most nodes in an active state at once: %d (maxParallelUpgrades %d);"
                            + " driver pods replaced: %d%n",
                    cluster.maxActive.get(), maxParallel, driverPodsReplaced);
            System.out.printf(
                    "  controller writes: %d = %.2f per node upgrade; %s%n",
                    controllerWrites, controllerWrites / (double) n, writes.describe(false, n));
            System.out.printf(
                    "  evictions: %d of %d distinct pods; pod deletes: %d of %d distinct pods%n",
                    writes.evictions,
                    writes.evicted.size(),
                    writes.podDeletes,
                    writes.deleted.size());
            writes.deletesByDaemonSet.forEach(
                    (ds, count) ->
                            System.out.printf(
                                    "    %s: %d deletes of %d distinct pods (%.2f/node)%n",
                                    ds,
                                    count,
                                    writes.deletedByDaemonSet.get(ds).size(),
                                    count / (double) n));
            System.out.printf(
                    "  benchmark as DaemonSet controller: driver pods replaced %d, operand pods"
                            + " taken off paused nodes %s, recreated %s%n",
                    driverPodsReplaced, cluster.paused, cluster.recreated);
            System.out.printf(
                    "  benchmark writes (excluded): %d; %s%n",
                    writes.total(true), writes.describe(true, n));
            System.out.printf(
                    "  reconciliations during the rollout: %d (%.2f per node)%n",
                    reconciliations, reconciliations / (double) n);
            System.out.printf(
                    "  heap used after GC: controller %.1f MiB (dropped when it closed);"
                            + " all after the rollout minus before the controller started %.1f MiB%n",
                    (heapEnd - heapAfterClose) / 1048576.0, (heapEnd - heapBefore) / 1048576.0);
            System.out.printf(
                    "  CPU s during the rollout: API server %.1f / controller + benchmark %.1f;"
                            + " load average at the end %.2f%n",
                    cpu[0] - cpuBefore[0],
                    cpu[1] - cpuBefore[1],
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            cluster.close();
            requests.close();
        } finally {
            server.destroy();
        }
    }

    private static KubernetesClient client(io.fabric8.kubernetes.client.Config config) {
        return client(config, new KubernetesClientBuilder());
    }

    /** The controller's from {@link ControllerSerialization#clientBuilder}. */
    private static KubernetesClient client(
            io.fabric8.kubernetes.client.Config config, KubernetesClientBuilder builder) {
        return builder.withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    private static ClusterPolicy policy(int maxParallel, String maxUnavailable) {
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
        ClusterPolicySpec spec = new ClusterPolicySpec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("t4-x1");
        spec.setSimulation(sim);
        DriverSpec driver = new DriverSpec();
        driver.setVersion(OLD);
        DriverUpgradePolicySpec up = new DriverUpgradePolicySpec();
        up.setAutoUpgrade(true);
        up.setMaxParallelUpgrades(maxParallel);
        up.setMaxUnavailable(new IntOrString(maxUnavailable));
        driver.setUpgradePolicy(up);
        spec.setDriver(driver);
        p.setSpec(ClusterPolicyDefaults.effective(spec));
        return p;
    }

    private static State policyState(KubernetesClient client) {
        ClusterPolicy p = client.resources(ClusterPolicy.class).withName("cluster-policy").get();
        return p == null || p.getStatus() == null ? null : p.getStatus().getState();
    }

    private static DaemonSet daemonSet(KubernetesClient client, Operand operand) {
        return client.apps().daemonSets().inNamespace(NS).withName(operand.daemonSetName()).get();
    }

    /** A simulated GPU node whose kubelet reports Ready. */
    private static void readyNode(KubernetesClient client, String name) {
        Node created =
                client.nodes()
                        .resource(
                                new NodeBuilder()
                                        .withNewMetadata()
                                        .withName(name)
                                        .withLabels(Map.of(SIM, "true"))
                                        .endMetadata()
                                        .withNewStatus()
                                        .addNewCondition()
                                        .withType("Ready")
                                        .withStatus("True")
                                        .endCondition()
                                        .endStatus()
                                        .build())
                        .create();
        if (created.getStatus() == null || created.getStatus().getConditions().isEmpty()) {
            throw new IllegalStateException("the mock dropped the node's status on create");
        }
    }

    /** As the DaemonSet controller and the kubelet: the operand's pod on the node, Ready now. */
    private static Pod readyPod(DaemonSet ds, String node) {
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        return new PodBuilder()
                .withNewMetadata()
                .withName(podName(ds.getMetadata().getName(), node))
                .withNamespace(NS)
                .withLabels(ds.getSpec().getTemplate().getMetadata().getLabels())
                .withAnnotations(ds.getSpec().getTemplate().getMetadata().getAnnotations())
                .endMetadata()
                .withSpec(ds.getSpec().getTemplate().getSpec())
                .editSpec()
                .withNodeName(node)
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withStartTime(now)
                .withConditions(
                        new PodConditionBuilder()
                                .withType("Ready")
                                .withStatus("True")
                                .withLastTransitionTime(now)
                                .build())
                .endStatus()
                .build();
    }

    private static String podName(String daemonSet, String node) {
        return daemonSet + "-" + node;
    }

    /** A GPU workload on the node, owned by a (pretend) ReplicaSet: evictable. */
    private static Pod gpuWorkload(String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("train-" + node)
                .withNamespace(WORK)
                .withLabels(Map.of("app", "train"))
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName("train")
                .withUid("rs-train")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("cuda")
                .withImage("cuda:12")
                .withNewResources()
                .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
                .endResources()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withConditions(
                        new PodConditionBuilder().withType("Ready").withStatus("True").build())
                .endStatus()
                .build();
    }

    /**
     * The cluster as the benchmark sees it, from informers (O(1) per event): node labels and
     * upgrade states, and the operand pods the controller deletes, which it recreates (as their
     * DaemonSet controller), the driver's followed by the validator's re-validation.
     */
    private static final class Cluster implements AutoCloseable {
        private final KubernetesClient client;
        private final Map<String, Map<String, String>> labels = new ConcurrentHashMap<>();
        private final Map<String, Track> tracks = new ConcurrentHashMap<>();
        private final AtomicInteger active = new AtomicInteger();
        private final AtomicInteger maxActive = new AtomicInteger();
        private final AtomicInteger finished = new AtomicInteger();
        private final AtomicInteger replaced = new AtomicInteger();
        private final Map<Operand, AtomicInteger> recreated = new ConcurrentHashMap<>();
        private final Map<Operand, AtomicInteger> paused = new ConcurrentHashMap<>();

        /** Nodes whose driver pod was deleted and not yet replaced. */
        private final java.util.Set<String> driverDown = ConcurrentHashMap.newKeySet();

        /** One lock per node: the benchmark's actions on a node run one at a time. */
        private final Map<String, Object> nodeLocks = new ConcurrentHashMap<>();

        private final SharedIndexInformer<Node> nodeInformer;
        private final SharedIndexInformer<Pod> podInformer;
        private final ExecutorService actors = Executors.newFixedThreadPool(4);
        private volatile boolean rollout;

        /** A node's upgrade as seen: its state, and whether it left upgrade-done in the rollout. */
        private static final class Track {
            UpgradeState state = UpgradeState.UNKNOWN;
            boolean active;
            boolean started;
            boolean finished;
        }

        Cluster(KubernetesClient client, int n) {
            this.client = client;
            nodeInformer =
                    client.nodes()
                            .inform(
                                    new ResourceEventHandler<>() {
                                        @Override
                                        public void onAdd(Node node) {
                                            seen(node);
                                        }

                                        @Override
                                        public void onUpdate(Node before, Node node) {
                                            seen(node);
                                        }

                                        @Override
                                        public void onDelete(Node node, boolean unknown) {
                                            labels.remove(node.getMetadata().getName());
                                        }
                                    });
            podInformer =
                    client.pods()
                            .inNamespace(NS)
                            .inform(
                                    new ResourceEventHandler<>() {
                                        @Override
                                        public void onAdd(Pod pod) {}

                                        @Override
                                        public void onUpdate(Pod before, Pod pod) {}

                                        @Override
                                        public void onDelete(Pod pod, boolean unknown) {
                                            Operand operand = operandOf(pod);
                                            if (!rollout || operand == null) {
                                                return;
                                            }
                                            String node = pod.getSpec().getNodeName();
                                            if (operand == Operand.DRIVER) {
                                                // before the validator's replacement may run
                                                driverDown.add(node);
                                                actors.execute(() -> replaceDriver(node));
                                            } else if (deployed(operand, node)) {
                                                // a restart (the validator's); a paused one
                                                // comes back when its label does
                                                actors.execute(() -> recreate(operand, node));
                                            }
                                        }
                                    });
        }

        void rolloutStarted() {
            rollout = true;
        }

        private boolean deployed(Operand operand, String node) {
            return "true".equals(labels.getOrDefault(node, Map.of()).get(operand.deployLabel()));
        }

        private synchronized void seen(Node node) {
            String name = node.getMetadata().getName();
            Map<String, String> l =
                    node.getMetadata().getLabels() == null
                            ? Map.of()
                            : node.getMetadata().getLabels();
            Map<String, String> before = labels.put(name, l);
            if (rollout && before != null) {
                followDeployLabels(name, before, l);
            }
            Track track = tracks.computeIfAbsent(name, k -> new Track());
            track.state = UpgradeState.fromLabel(l.get(UpgradeKeys.STATE_LABEL));
            boolean nowActive = track.state.active();
            if (nowActive != track.active) {
                track.active = nowActive;
                maxActive.accumulateAndGet(
                        nowActive ? active.incrementAndGet() : active.decrementAndGet(), Math::max);
            }
            if (rollout && track.state != UpgradeState.UPGRADE_DONE) {
                track.started = true;
            }
            boolean schedulable =
                    node.getSpec() == null
                            || !Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            boolean done = track.started && track.state == UpgradeState.UPGRADE_DONE && schedulable;
            if (done != track.finished) {
                track.finished = done;
                if (done) {
                    finished.incrementAndGet();
                } else {
                    finished.decrementAndGet();
                }
            }
        }

        /**
         * As the DaemonSet controller (OnDelete), the kubelet and the validator: the validator
         * fails while the driver is gone, the new driver pod comes up Ready, then the validator
         * passes again (Ready since after the new driver pod started).
         */
        private void replaceDriver(String node) {
            synchronized (nodeLocks.computeIfAbsent(node, k -> new Object())) {
                try {
                    Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
                    setValidatorReady(node, false, started);
                    DaemonSet ds = daemonSet(client, Operand.DRIVER);
                    client.pods().inNamespace(NS).resource(readyPod(ds, node)).create();
                    replaced.incrementAndGet();
                    driverDown.remove(node);
                    setValidatorReady(node, true, Instant.now().truncatedTo(ChronoUnit.SECONDS));
                } catch (RuntimeException e) {
                    System.err.println("replacing the driver pod on " + node + ": " + e);
                }
            }
        }

        /**
         * As the operand's DaemonSet controller and the kubelet: its deleted pod comes back from
         * the DaemonSet's current template, Ready, created and started now (the mock stamps
         * creationTimestamp on create). A validator comes back Ready only once the node's new
         * driver pod exists (after its startTime; the lock orders it after a running replacement),
         * NotReady while the driver is down (the replacement turns it Ready).
         */
        private void recreate(Operand operand, String node) {
            synchronized (nodeLocks.computeIfAbsent(node, k -> new Object())) {
                try {
                    Pod pod = readyPod(daemonSet(client, operand), node);
                    if (operand == Operand.VALIDATOR && driverDown.contains(node)) {
                        pod.getStatus().getConditions().getFirst().setStatus("False");
                    }
                    client.pods().inNamespace(NS).resource(pod).create();
                    recreated.computeIfAbsent(operand, k -> new AtomicInteger()).incrementAndGet();
                } catch (RuntimeException e) {
                    System.err.println("recreating the " + operand + " pod on " + node + ": " + e);
                }
            }
        }

        /**
         * As the DaemonSet controllers of the operands the upgrade pauses: the pod leaves the node
         * when its deploy label stops being {@code true}, and comes back when it is again.
         */
        private void followDeployLabels(
                String node, Map<String, String> before, Map<String, String> now) {
            for (Operand o : GATES) {
                if (o == Operand.DRIVER || o == Operand.CONTAINER_TOOLKIT) {
                    continue;
                }
                boolean was = "true".equals(before.get(o.deployLabel()));
                boolean is = "true".equals(now.get(o.deployLabel()));
                if (was && !is) {
                    actors.execute(() -> removeFromNode(o, node));
                } else if (!was && is) {
                    actors.execute(() -> recreate(o, node));
                }
            }
        }

        private void removeFromNode(Operand operand, String node) {
            synchronized (nodeLocks.computeIfAbsent(node, k -> new Object())) {
                client.pods()
                        .inNamespace(NS)
                        .withName(podName(operand.daemonSetName(), node))
                        .delete();
                paused.computeIfAbsent(operand, k -> new AtomicInteger()).incrementAndGet();
            }
        }

        /** Sets the validator's Ready condition; none when its pod is gone (being recreated). */
        private void setValidatorReady(String node, boolean ready, Instant since) {
            String name = podName(Operand.VALIDATOR.daemonSetName(), node);
            if (podInformer.getStore().getByKey(NS + "/" + name) == null) {
                return;
            }
            try {
                editValidatorStatus(name, ready, since);
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != 404) { // deleted since the informer saw it
                    throw e;
                }
            }
        }

        private void editValidatorStatus(String name, boolean ready, Instant since) {
            client.pods()
                    .inNamespace(NS)
                    .withName(name)
                    .editStatus(
                            p -> {
                                p.getStatus()
                                        .setConditions(
                                                List.of(
                                                        new PodConditionBuilder()
                                                                .withType("Ready")
                                                                .withStatus(
                                                                        ready ? "True" : "False")
                                                                .withLastTransitionTime(
                                                                        since.toString())
                                                                .build()));
                                return p;
                            });
        }

        int nodes() {
            return labels.size();
        }

        long labelled(Operand operand) {
            return labels.values().stream()
                    .filter(l -> "true".equals(l.get(operand.deployLabel())))
                    .count();
        }

        long inState(UpgradeState state) {
            return tracks.values().stream().filter(t -> t.state == state).count();
        }

        int finished() {
            return finished.get();
        }

        /** Nodes per upgrade state, and how many finished. */
        synchronized String progress() {
            Map<String, Integer> states = new TreeMap<>();
            tracks.values().forEach(t -> states.merge(t.state.label(), 1, Integer::sum));
            return finished.get() + " finished, " + active.get() + " active, " + states;
        }

        @Override
        public void close() {
            nodeInformer.close();
            podInformer.close();
            actors.shutdownNow();
        }

        /** The operand whose DaemonSet owns the pod (by its app label), or null. */
        private static Operand operandOf(Pod pod) {
            Map<String, String> l = pod.getMetadata().getLabels();
            String app =
                    l == null
                            ? null
                            : l.get(org.gpuoperator.controller.operand.PodContract.APP_LABEL);
            for (Operand o : Operand.values()) {
                if (o.daemonSetName().equals(app)) {
                    return o;
                }
            }
            return null;
        }
    }

    /**
     * Drains the mock's recorded requests in the background and counts the writes, by sender (the
     * benchmark's User-Agent or not) and by verb and kind.
     */
    private static final class Requests implements AutoCloseable {
        private static final Pattern POD =
                Pattern.compile("/api/v1/namespaces/[^/]+/pods/([^/]+)(/.*)?");

        private final KubernetesMockServer server;
        private final Thread drainer;
        private volatile boolean running = true;
        private Counts counts = new Counts();

        Requests(KubernetesMockServer server) {
            this.server = server;
            drainer = new Thread(this::drain, "bench-request-drainer");
            drainer.setDaemon(true);
            drainer.start();
        }

        /** Writes per sender and kind; evictions and pod deletes by pod, to spot repeats. */
        static final class Counts {
            final Map<String, Integer> controller = new TreeMap<>();
            final Map<String, Integer> bench = new TreeMap<>();
            final Map<String, Integer> evicted = new HashMap<>();
            final Map<String, Integer> deleted = new HashMap<>();

            /** Pod deletes by the DaemonSet of the pod (name prefix), and distinct pods. */
            final Map<String, Integer> deletesByDaemonSet = new TreeMap<>();

            final Map<String, java.util.Set<String>> deletedByDaemonSet = new TreeMap<>();
            long statusBytes;
            int evictions;
            int podDeletes;

            int total(boolean ofBench) {
                return (ofBench ? bench : controller).values().stream().mapToInt(i -> i).sum();
            }

            String describe(boolean ofBench, int n) {
                StringBuilder s = new StringBuilder();
                (ofBench ? bench : controller)
                        .forEach(
                                (k, v) ->
                                        s.append(s.isEmpty() ? "" : ", ")
                                                .append(k)
                                                .append(' ')
                                                .append(v)
                                                .append(
                                                        String.format(
                                                                " (%.2f/node)", v / (double) n)));
                if (!ofBench) {
                    s.append(
                            String.format(
                                    "; policy status bytes %.1f MiB", statusBytes / 1048576.0));
                }
                return s.toString();
            }
        }

        private void drain() {
            while (running) {
                try {
                    RecordedRequest r = server.takeRequest(100, TimeUnit.MILLISECONDS);
                    if (r != null) {
                        count(r);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private synchronized void count(RecordedRequest r) {
            String method = r.getMethod();
            if (!List.of("POST", "PUT", "PATCH", "DELETE").contains(method)) {
                return;
            }
            String path = r.getPath();
            int q = path.indexOf('?');
            path = q < 0 ? path : path.substring(0, q);
            String kind = kind(path);
            boolean ofBench = BENCH_AGENT.equals(r.getHeader("User-Agent"));
            String key = method + " " + kind;
            if (!ofBench && kind.equals("pods") && method.equals("DELETE")) {
                // the driver pod's delete, or an operand pod's restart
                String ds = daemonSetOf(path.substring(path.lastIndexOf('/') + 1));
                key +=
                        ds.equals(Operand.DRIVER.daemonSetName())
                                ? " (driver)"
                                : " (operand restart)";
            }
            (ofBench ? counts.bench : counts.controller).merge(key, 1, Integer::sum);
            if (!ofBench) {
                if (kind.equals("pods/eviction")) {
                    counts.evictions++;
                    counts.evicted.merge(path, 1, Integer::sum);
                } else if (kind.equals("pods") && method.equals("DELETE")) {
                    counts.podDeletes++;
                    counts.deleted.merge(path, 1, Integer::sum);
                    String ds = daemonSetOf(path.substring(path.lastIndexOf('/') + 1));
                    counts.deletesByDaemonSet.merge(ds, 1, Integer::sum);
                    counts.deletedByDaemonSet
                            .computeIfAbsent(ds, k -> new java.util.HashSet<>())
                            .add(path);
                } else if (kind.equals("clusterpolicies/status")) {
                    counts.statusBytes += r.getBody().size();
                }
            }
        }

        /** The operand DaemonSet whose pod has this name (DaemonSet name + "-" + node). */
        private static String daemonSetOf(String podName) {
            for (Operand o : Operand.values()) {
                if (podName.startsWith(o.daemonSetName() + "-gpu-")) {
                    return o.daemonSetName();
                }
            }
            return "other";
        }

        /** The resource and subresource of a path: nodes, nodes/status, pods/eviction, ... */
        private static String kind(String path) {
            Matcher pod = POD.matcher(path);
            if (pod.matches()) {
                return pod.group(2) == null ? "pods" : "pods" + pod.group(2);
            }
            String[] parts = path.split("/");
            // /api/v1/nodes/x[/status], /apis/g/v/[namespaces/ns/]plural[/name[/sub]]
            int i = path.startsWith("/apis/") ? 4 : 3;
            if (parts.length > i + 1 && parts[i].equals("namespaces") && parts.length > i + 2) {
                i += 2;
            }
            if (parts.length <= i) {
                return path;
            }
            String plural = parts[i];
            return parts.length > i + 2 ? plural + "/" + parts[i + 2] : plural;
        }

        /**
         * The writes counted since the last call, half a second after it (the drainer catches up).
         */
        Counts take() throws InterruptedException {
            Thread.sleep(500);
            synchronized (this) {
                Counts c = counts;
                counts = new Counts();
                return c;
            }
        }

        synchronized String peek() {
            return "controller writes so far: " + counts.controller;
        }

        @Override
        public void close() {
            running = false;
            drainer.interrupt();
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /**
     * CPU seconds of the mock API server's threads (vert.x) and of all other threads of this JVM.
     */
    private static double[] cpuSeconds() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] cpu = new double[2];
        for (long id : mx.getAllThreadIds()) {
            java.lang.management.ThreadInfo info = mx.getThreadInfo(id);
            long nanos = mx.getThreadCpuTime(id);
            if (info != null && nanos > 0) {
                cpu[info.getThreadName().startsWith("vert.x-") ? 0 : 1] += nanos / 1e9;
            }
        }
        return cpu;
    }

    private static void waitFor(String what, BooleanSupplier condition, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not reached after " + seconds + " s");
            }
            Thread.sleep(200);
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
