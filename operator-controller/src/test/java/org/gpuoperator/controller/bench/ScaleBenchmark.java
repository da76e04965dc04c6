package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.controller.reconcile.ControllerSerialization;
import org.gpuoperator.controller.reconcile.RealisticNode;

/**
 * Scale benchmark (not a test): N simulated GPU nodes (shaped like real ones) on the fabric8 CRUD
 * mock server, the controller in-process. Prints time to converge through the first two gates,
 * writes per node join, writes in a no-op reconcile, then a steady state of kubelet heartbeats and
 * workload pod churn ({@link SteadyLoad}), and, with {@code -Dbench.controller=process}, the
 * controller's RSS and live heap after it. Usage: ScaleBenchmark [nodes...] (default 1000 5000).
 */
public final class ScaleBenchmark {

    private static final String NS = "gpu-operator";
    private static final String SIM = "gpuoperator.org/simulated-gpu";

    /**
     * The benchmark's own requests carry this User-Agent, so the controller's can be told apart.
     */
    static final String BENCH_AGENT = "scale-benchmark";

    /** -Dbench.realistic=false: bare nodes (name and one label) instead of kubelet-shaped ones. */
    private static final boolean REALISTIC = !"false".equals(System.getProperty("bench.realistic"));

    /** -Dbench.steadySeconds: how long the steady state (heartbeats, pod churn) is measured. */
    private static final int STEADY_SECONDS = Integer.getInteger("bench.steadySeconds", 60);

    /**
     * -Dbench.controller=process: the controller alone in its own JVM, as deployed (the image's JVM
     * flags, fabric8's default HTTP client), its CPU read from /proc: GC and JIT included, and no
     * JIT profile or cache shared with the mock server and the benchmark's client.
     */
    private static final boolean OWN_PROCESS =
            "process".equals(System.getProperty("bench.controller"));

    /** -Dbench.mock=stock: the stock CRUD mock, whose every request scans all stored objects. */
    private static final boolean STOCK_MOCK = "stock".equals(System.getProperty("bench.mock"));

    public static void main(String[] args) throws Exception {
        int[] sizes =
                args.length == 0
                        ? new int[] {1000, 5000}
                        : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.println(
                "API server: "
                        + (STOCK_MOCK ? "stock fabric8 CRUD mock" : "CRUD mock indexed by name")
                        + "; controller "
                        + (OWN_PROCESS ? "in its own JVM" : "in this JVM"));
        System.out.println(
                "nodes | label all (driver gate) | driver Ready -> toolkit label on all | writes/node join"
                        + " | writes in no-op reconcile | controller memory (MiB; process mode: RSS, live heap) | writes during convergence"
                        + " | node gate evaluations during convergence | CPU s: API server / controller + benchmark"
                        + " | steady state");
        for (int n : sizes) {
            run(n);
        }
        System.exit(0);
    }

    private static void run(int n) throws Exception {
        KubernetesMockServer server =
                new KubernetesMockServer(
                        new io.fabric8.mockwebserver.Context(),
                        new io.fabric8.mockwebserver.MockWebServer(),
                        new java.util.HashMap<>(),
                        STOCK_MOCK
                                ? new io.fabric8.kubernetes.client.server.mock
                                        .KubernetesCrudDispatcher()
                                : new IndexedCrudDispatcher(),
                        false);
        server.init();
        var base = server.createClient().getConfiguration();
        java.util.Set<Long> threadsBefore = threadIds();
        KubernetesClient bench =
                client(
                        new io.fabric8.kubernetes.client.ConfigBuilder(base)
                                .withUserAgent(BENCH_AGENT)
                                .build(),
                        new io.fabric8.kubernetes.client.KubernetesClientBuilder(),
                        "bench-http");
        java.util.Set<Long> benchThreads = threadIds();
        benchThreads.removeAll(threadsBefore);
        try (bench;
                KubernetesClient client =
                        OWN_PROCESS
                                ? null
                                : client(
                                        base,
                                        ControllerSerialization.clientBuilder(),
                                        "controller-http")) {
            try (InputStream in =
                    ClusterPolicy.class.getResourceAsStream(
                            "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
                bench.apiextensions().v1().customResourceDefinitions().load(in).create();
            }
            for (int i = 0; i < n; i++) {
                bench.nodes().resource(node("gpu-" + i)).create();
            }
            LabelCounter counter = new LabelCounter(bench);
            waitFor(() -> counter.size() == n, 120);
            drain(server);
            MeasuredController runtime =
                    OWN_PROCESS
                            ? MeasuredController.ownProcess(
                                    base,
                                    NS,
                                    java.nio.file.Path.of("target/bench-controller-" + n + ".log"))
                            : MeasuredController.inProcess(
                                    ControllerRuntime.start(
                                            client, ControllerRuntime.Config.forTests(NS)));
            ClusterPolicy p = new ClusterPolicy();
            p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
            ClusterPolicySpec spec = new ClusterPolicySpec();
            SimulationSpec sim = new SimulationSpec();
            sim.setEnabled(true);
            spec.setSimulation(sim);
            p.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
            double[] cpuBefore = cpuSeconds();
            double controllerBefore = runtime.cpuSeconds().orElse(0);
            long t0 = System.nanoTime();
            bench.resource(p).create();
            waitFor(() -> counter.labelled(Operand.DRIVER) == n, 600);
            double labelAll = (System.nanoTime() - t0) / 1e9;

            // as the DaemonSet controller + kubelet: a Ready driver pod on every node
            DaemonSet driver =
                    bench.apps()
                            .daemonSets()
                            .inNamespace(NS)
                            .withName(Operand.DRIVER.daemonSetName())
                            .get();
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                readyPod(bench, driver, "gpu-" + i);
            }
            double createdAll = (System.nanoTime() - t1) / 1e9;
            waitFor(() -> counter.labelled(Operand.CONTAINER_TOOLKIT) == n, 600);
            double toolkitAll = (System.nanoTime() - t1) / 1e9;
            long evaluations = runtime.gateEvaluations();
            Thread.sleep(2000);
            int convergenceWrites = drain(server);

            // one node joins
            bench.nodes().resource(node("joiner")).create();
            waitFor(
                    () ->
                            "true"
                                    .equals(
                                            bench.nodes()
                                                    .withName("joiner")
                                                    .get()
                                                    .getMetadata()
                                                    .getLabels()
                                                    .get(Operand.DRIVER.deployLabel())),
                    120);
            Thread.sleep(
                    3000); // the follow-up reconcile (our own patch event) must write nothing more
            int joinWrites = drain(server);

            // no-op reconcile: a pod event that changes nothing the controller acts on
            long before = runtime.reconciliations();
            bench.pods()
                    .inNamespace(NS)
                    .withName(Operand.DRIVER.daemonSetName() + "-gpu-0")
                    .edit(
                            pod -> {
                                pod.getMetadata().getAnnotations().put("touched", "yes");
                                return pod;
                            });
            waitFor(() -> runtime.reconciliations() > before, 120);
            Thread.sleep(3000);
            int noopWrites = drain(server);
            double[] cpu = cpuSeconds();
            double controllerCpu = runtime.cpuSeconds().orElse(0) - controllerBefore;
            counter.close(); // its informer's threads would count as the controller's below

            SteadyLoad.Figures steady =
                    SteadyLoad.run(
                            bench, benchThreads, runtime, n, STEADY_SECONDS, () -> drain(server));
            String memory;
            if (runtime instanceof MeasuredController.OwnProcess own) {
                memory = String.format("RSS %.1f, heap %.1f", own.rssMiB(), own.liveHeapMiB());
                if (System.getProperty("bench.controllerJvm", "")
                        .contains("NativeMemoryTracking")) {
                    java.nio.file.Files.writeString(
                            java.nio.file.Path.of("target/bench-controller-" + n + ".nmt"),
                            own.jcmd("GC.heap_info") + own.jcmd("VM.native_memory", "summary"));
                }
                runtime.close();
            } else {
                // Not measured: the heap used with the controller running minus after closing it
                // gave 9 MiB at 5,000 nodes, because its informers' nodes and pods stay reachable
                // after the close in this JVM (a class histogram: all 5,001 nodes and 5,050 pods);
                // -Dbench.controller=process gives its live heap alone in its JVM.
                runtime.close();
                memory = "n/a (process mode)";
            }
            System.out.printf(
                    "%d | %.1f s | %.1f s (last pod created at %.1f s) | %d | %d | %s | %d | %d"
                            + " | %.1f / %.1f%s | %s%n",
                    n,
                    labelAll,
                    toolkitAll,
                    createdAll,
                    joinWrites,
                    noopWrites,
                    memory,
                    convergenceWrites,
                    evaluations,
                    cpu[0] - cpuBefore[0],
                    cpu[1] - cpuBefore[1],
                    OWN_PROCESS ? String.format(" (controller's JVM: %.1f)", controllerCpu) : "",
                    steady);
        } finally {
            server.destroy();
        }
    }

    /**
     * Counts labelled nodes from a watch: O(1) per node event, where listing all nodes every poll
     * is O(N).
     */
    private static final class LabelCounter implements AutoCloseable {
        private final Map<String, Map<String, String>> labels =
                new java.util.concurrent.ConcurrentHashMap<>();
        private io.fabric8.kubernetes.client.informers.SharedIndexInformer<Node> informer;

        LabelCounter(KubernetesClient client) {
            informer =
                    client.nodes()
                            .inform(
                                    new io.fabric8.kubernetes.client.informers
                                            .ResourceEventHandler<>() {
                                        @Override
                                        public void onAdd(Node node) {
                                            labels.put(
                                                    node.getMetadata().getName(),
                                                    node.getMetadata().getLabels());
                                        }

                                        @Override
                                        public void onUpdate(Node before, Node node) {
                                            onAdd(node);
                                        }

                                        @Override
                                        public void onDelete(Node node, boolean unknown) {
                                            labels.remove(node.getMetadata().getName());
                                        }
                                    });
        }

        int size() {
            return labels.size();
        }

        long labelled(Operand operand) {
            return labels.values().stream()
                    .filter(l -> l != null && "true".equals(l.get(operand.deployLabel())))
                    .count();
        }

        /** Closes the watch and lets go of what it cached (not the controller's heap). */
        @Override
        public void close() {
            informer.close();
            informer = null;
            labels.clear();
        }
    }

    /** A bare node, or with -Dbench.realistic (the default) one shaped like a real kubelet's. */
    private static Node node(String name) {
        Node n =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(Map.of(SIM, "true"))
                        .endMetadata()
                        .build();
        return REALISTIC ? RealisticNode.shape(n, Instant.now().toString()) : n;
    }

    private static java.util.Set<Long> threadIds() {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.threadId());
        }
        return ids;
    }

    /**
     * A client from {@code builder} (the controller's is {@link
     * ControllerSerialization#clientBuilder}) whose HTTP threads are named {@code threads-*}, for
     * the CPU split.
     */
    private static KubernetesClient client(
            io.fabric8.kubernetes.client.Config config,
            io.fabric8.kubernetes.client.KubernetesClientBuilder builder,
            String threads) {
        java.util.concurrent.atomic.AtomicInteger serial =
                new java.util.concurrent.atomic.AtomicInteger();
        return builder.withConfig(config)
                .withHttpClientFactory(
                        new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory() {
                            @Override
                            protected void additionalConfig(java.net.http.HttpClient.Builder b) {
                                b.executor(
                                        java.util.concurrent.Executors.newCachedThreadPool(
                                                r -> {
                                                    Thread t =
                                                            new Thread(
                                                                    r,
                                                                    threads
                                                                            + "-"
                                                                            + serial
                                                                                    .incrementAndGet());
                                                    t.setDaemon(true);
                                                    return t;
                                                }));
                            }
                        })
                .build();
    }

    private static void readyPod(KubernetesClient client, DaemonSet ds, String node) {
        client.pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName(ds.getMetadata().getName() + "-" + node)
                                .withNamespace(NS)
                                .withLabels(ds.getSpec().getTemplate().getMetadata().getLabels())
                                .withAnnotations(
                                        ds.getSpec().getTemplate().getMetadata().getAnnotations())
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(node)
                                .addNewContainer()
                                .withName("c")
                                .withImage("x")
                                .endContainer()
                                .endSpec()
                                .withNewStatus()
                                .withConditions(
                                        new PodConditionBuilder()
                                                .withType("Ready")
                                                .withStatus("True")
                                                .build())
                                .endStatus()
                                .build())
                .create();
    }

    /**
     * CPU seconds of the mock API server's threads ({@link SteadyLoad#apiServer}) and of all other
     * threads of this JVM.
     */
    private static double[] cpuSeconds() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        double[] cpu = new double[2];
        for (long id : mx.getAllThreadIds()) {
            java.lang.management.ThreadInfo info = mx.getThreadInfo(id);
            long nanos = mx.getThreadCpuTime(id);
            if (info != null && nanos > 0) {
                cpu[SteadyLoad.apiServer(info.getThreadName()) ? 0 : 1] += nanos / 1e9;
            }
        }
        return cpu;
    }

    /** The controller's writes since the last drain (the benchmark's own carry its User-Agent). */
    private static int drain(KubernetesMockServer server) throws InterruptedException {
        int writes = 0;
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            if (List.of("POST", "PUT", "PATCH", "DELETE").contains(r.getMethod())
                    && !BENCH_AGENT.equals(r.getHeader("User-Agent"))) {
                writes++;
            }
        }
        return writes;
    }

    private static void waitFor(BooleanSupplier condition, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not converged after " + seconds + " s");
            }
            Thread.sleep(200);
        }
    }
}
