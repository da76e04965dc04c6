package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.controller.reconcile.RealisticNode;

/**
 * A converged cluster's everyday traffic, measured: every node's kubelet reports status every 10 s
 * (conditions' heartbeat times only, as a real one between changes), and GPU workload pods come and
 * go at a steady rate. What the controller does meanwhile is what it costs at rest.
 */
final class SteadyLoad {

    static final String WORKLOAD_NS = "ml";
    static final int PODS_PER_SECOND = 5;
    static final int LIVE_PODS = 50;

    /** One steady-state measurement. */
    record Figures(
            int seconds,
            int warmupSeconds,
            double heartbeatsPerSecond,
            int podsCreated,
            long gateEvaluations,
            long reconciliations,
            int controllerWrites,
            double controllerCores,
            double apiServerCores) {
        @Override
        public String toString() {
            return String.format(
                    "steady %d s%s: %.0f heartbeats/s, %d pods created and deleted: controller %.3f"
                            + " core, %.1f writes/min, %d gate evaluations, %d reconciliations;"
                            + " API server %.2f core",
                    seconds,
                    warmupSeconds == 0
                            ? ""
                            : " (after "
                                    + warmupSeconds
                                    + " s of the same load; writes, evaluations and"
                                    + " reconciliations over both)",
                    heartbeatsPerSecond,
                    podsCreated,
                    controllerCores,
                    controllerWrites * 60.0 / (seconds + warmupSeconds),
                    gateEvaluations,
                    reconciliations,
                    apiServerCores);
        }
    }

    interface Writes {
        /** The controller's writes since the last call. */
        int drain() throws InterruptedException;
    }

    /**
     * -Dbench.steadyWarmup=S: the load runs S seconds before the CPU is measured (0 by default), so
     * that the JIT's compilations of the new steady path are not counted as the rest's cost.
     */
    static final int WARMUP_SECONDS = Integer.getInteger("bench.steadyWarmup", 0);

    private SteadyLoad() {}

    /**
     * @param benchThreads the benchmark client's threads besides its named ones (its HTTP
     *     selector), left out of the controller's CPU
     */
    static Figures run(
            KubernetesClient bench,
            java.util.Set<Long> benchThreads,
            MeasuredController runtime,
            int nodes,
            int seconds,
            Writes writes)
            throws InterruptedException {
        writes.drain(); // what came before is not the steady state
        long evaluations = runtime.gateEvaluations();
        long reconciliations = runtime.reconciliations();
        AtomicInteger beats = new AtomicInteger();
        AtomicInteger pods = new AtomicInteger();
        ScheduledExecutorService load =
                Executors.newScheduledThreadPool(
                        2,
                        r -> {
                            Thread t = new Thread(r, "bench-load");
                            t.setDaemon(true);
                            return t;
                        });
        int perTick = Math.max(1, nodes / 100); // every node once per 10 s, in 100 ms ticks
        AtomicInteger next = new AtomicInteger();
        load.scheduleAtFixedRate(
                () -> {
                    String now = Instant.now().toString();
                    for (int i = 0; i < perTick; i++) {
                        if (heartbeat(
                                bench,
                                "gpu-" + Math.floorMod(next.getAndIncrement(), nodes),
                                now)) {
                            beats.incrementAndGet();
                        }
                    }
                },
                0,
                100,
                TimeUnit.MILLISECONDS);
        load.scheduleAtFixedRate(
                () -> churn(bench, pods.getAndIncrement(), nodes),
                0,
                1000 / PODS_PER_SECOND,
                TimeUnit.MILLISECONDS);
        Thread.sleep(WARMUP_SECONDS * 1000L);
        jdk.jfr.Recording jfr = startJfr(runtime);
        java.util.Map<Long, ThreadCpu> before = threadCpu(benchThreads);
        double ownBefore = runtime.cpuSeconds().orElse(0);
        int beatsBefore = beats.get();
        int podsBefore = pods.get();
        // a mark for whoever samples the controller from outside meanwhile
        System.out.println("steady state: " + seconds + " s from " + Instant.now());
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        load.shutdownNow();
        load.awaitTermination(10, TimeUnit.SECONDS);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        double[] spent = spent(before, threadCpu(benchThreads));
        // a controller in its own JVM: its process's CPU; in this one: its threads'
        java.util.OptionalDouble own = runtime.cpuSeconds(); // reads /proc: once
        double controller = own.isPresent() ? own.getAsDouble() - ownBefore : spent[1];
        stopJfr(jfr, runtime, nodes);
        return new Figures(
                seconds,
                WARMUP_SECONDS,
                (beats.get() - beatsBefore) / elapsed,
                pods.get() - podsBefore,
                runtime.gateEvaluations() - evaluations,
                runtime.reconciliations() - reconciliations,
                writes.drain(),
                controller / elapsed,
                spent[0] / elapsed);
    }

    /** -Dbench.jfr=DIR: a JFR recording ("profile" settings) of each steady state, into DIR. */
    private static jdk.jfr.Recording startJfr(MeasuredController controller) {
        if (System.getProperty("bench.jfr") == null) {
            return null;
        }
        if (controller instanceof MeasuredController.OwnProcess own) { // the controller's JVM's
            own.jfr("start", "name=steady", "settings=profile");
            return null;
        }
        try {
            jdk.jfr.Recording r =
                    new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            r.start();
            return r;
        } catch (java.io.IOException | java.text.ParseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void stopJfr(jdk.jfr.Recording r, MeasuredController controller, int nodes) {
        java.nio.file.Path file =
                java.nio.file.Path.of(
                        System.getProperty("bench.jfr", "."), "steady-" + nodes + ".jfr");
        if (controller instanceof MeasuredController.OwnProcess own
                && System.getProperty("bench.jfr") != null) {
            own.jfr("stop", "name=steady", "filename=" + file.toAbsolutePath());
            return;
        }
        if (r == null) {
            return;
        }
        r.stop();
        try {
            r.dump(file);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            r.close();
        }
    }

    /**
     * The kubelet's status update between changes: new heartbeat times on its own conditions,
     * nothing else. A real kubelet's strategic merge patch keys conditions by type, so another
     * writer's condition (the controller's {@code GPUStackReady}, appended after the kubelet's)
     * stays; the JSON patch here does the same by index, each guarded by a test of its type.
     */
    private static boolean heartbeat(KubernetesClient bench, String node, String now) {
        StringBuilder ops = new StringBuilder("[");
        List<io.fabric8.kubernetes.api.model.NodeCondition> kubelets =
                RealisticNode.conditions(now);
        for (int i = 0; i < kubelets.size(); i++) {
            String path = "/status/conditions/" + i;
            ops.append(i == 0 ? "" : ",")
                    .append("{\"op\":\"test\",\"path\":\"")
                    .append(path)
                    .append("/type\",\"value\":\"")
                    .append(kubelets.get(i).getType())
                    .append("\"},{\"op\":\"replace\",\"path\":\"")
                    .append(path)
                    .append("/lastHeartbeatTime\",\"value\":\"")
                    .append(now)
                    .append("\"}");
        }
        try {
            bench.nodes()
                    .withName(node)
                    .subresource("status")
                    .patch(PatchContext.of(PatchType.JSON), ops.append("]").toString());
            return true;
        } catch (KubernetesClientException e) {
            return false; // not counted as sent; the next beat goes on
        }
    }

    /** Pod {@code k} starts on a node; pod {@code k - LIVE_PODS} ends. */
    private static void churn(KubernetesClient bench, int k, int nodes) {
        try {
            bench.pods()
                    .inNamespace(WORKLOAD_NS)
                    .resource(
                            new PodBuilder()
                                    .withNewMetadata()
                                    .withName("train-" + k)
                                    .withNamespace(WORKLOAD_NS)
                                    .withLabels(Map.of("app", "train"))
                                    .endMetadata()
                                    .withNewSpec()
                                    .withNodeName("gpu-" + Math.floorMod(k * 7919, nodes))
                                    .addNewContainer()
                                    .withName("cuda")
                                    .withImage(
                                            "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0")
                                    .withNewResources()
                                    .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
                                    .endResources()
                                    .endContainer()
                                    .endSpec()
                                    .withNewStatus()
                                    .withPhase("Running")
                                    .endStatus()
                                    .build())
                    .create();
            if (k >= LIVE_PODS) {
                bench.pods().inNamespace(WORKLOAD_NS).withName("train-" + (k - LIVE_PODS)).delete();
            }
        } catch (KubernetesClientException e) {
            // the mock refused one; the next goes on
        }
    }

    /** One thread's CPU time so far, its name, and whether it is the mock API server's. */
    private record ThreadCpu(long nanos, String name, boolean apiServer) {}

    /**
     * The mock API server's threads: vert.x's, and the single-thread executor each of its watches
     * sends events from ({@code WatchEventsListener}: {@code Executors}' default names, which
     * neither the controller nor its libraries use).
     */
    static boolean apiServer(String thread) {
        return thread.startsWith("vert.x-") || thread.matches("pool-\\d+-thread-\\d+");
    }

    /** -Dbench.threads=true: print the CPU per thread group (digits folded). */
    private static final boolean BY_THREAD = Boolean.getBoolean("bench.threads");

    /** The CPU time of every live thread that is not the benchmark's. */
    private static java.util.Map<Long, ThreadCpu> threadCpu(java.util.Set<Long> benchThreads) {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        java.util.Map<Long, ThreadCpu> out = new java.util.HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            java.lang.management.ThreadInfo info = mx.getThreadInfo(id);
            long nanos = mx.getThreadCpuTime(id);
            if (info == null
                    || nanos <= 0
                    || benchThreads.contains(id)
                    || info.getThreadName().startsWith("bench-")
                    // the benchmark client's responses (a heartbeat's PATCH returns the whole node)
                    // are parsed there; the controller at rest sends no request
                    || info.getThreadName().startsWith("ForkJoinPool.commonPool")) {
                continue;
            }
            out.put(
                    id,
                    new ThreadCpu(nanos, info.getThreadName(), apiServer(info.getThreadName())));
        }
        return out;
    }

    /**
     * CPU seconds spent between two samples: [0] by the mock API server's threads, [1] by the
     * controller's (every other thread but the benchmark's own and the common pool). Per thread, so
     * a pool thread that ends in between (its earlier work) does not count against the window; what
     * such a thread did within the window is lost. JIT compiler threads count as the controller's:
     * an overestimate.
     */
    private static double[] spent(
            java.util.Map<Long, ThreadCpu> before, java.util.Map<Long, ThreadCpu> after) {
        double[] cpu = new double[2];
        java.util.Map<String, Double> groups = new java.util.TreeMap<>();
        after.forEach(
                (id, now) -> {
                    ThreadCpu then = before.get(id);
                    double s = (now.nanos() - (then == null ? 0 : then.nanos())) / 1e9;
                    cpu[now.apiServer() ? 0 : 1] += s;
                    groups.merge(
                            (now.apiServer() ? "(API server) " : "")
                                    + now.name().replaceAll("[0-9]+", "#"),
                            s,
                            Double::sum);
                });
        if (BY_THREAD) {
            groups.entrySet().stream()
                    .filter(e -> e.getValue() >= 0.05)
                    .sorted(
                            java.util.Map.Entry.comparingByValue(
                                    java.util.Comparator.reverseOrder()))
                    .forEach(e -> System.out.printf("  %6.2f s  %s%n", e.getValue(), e.getKey()));
        }
        return cpu;
    }
}
