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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.reconcile.ControllerRuntime;

/**
 * Scale benchmark (not a test): N simulated GPU nodes on the fabric8 CRUD mock server, the
 * controller in-process. Prints time to converge through the first two gates, writes per node join,
 * writes in a no-op reconcile and the controller's heap. Usage: ScaleBenchmark [nodes...] (default
 * 1000 5000).
 */
public final class ScaleBenchmark {

    private static final String NS = "gpu-operator";
    private static final String SIM = "gpuoperator.org/simulated-gpu";

    /** -Dbench.mock=stock: the stock CRUD mock, whose every request scans all stored objects. */
    private static final boolean STOCK_MOCK = "stock".equals(System.getProperty("bench.mock"));

    public static void main(String[] args) throws Exception {
        int[] sizes =
                args.length == 0
                        ? new int[] {1000, 5000}
                        : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.println(
                "API server: "
                        + (STOCK_MOCK ? "stock fabric8 CRUD mock" : "CRUD mock indexed by name"));
        System.out.println(
                "nodes | label all (driver gate) | driver Ready -> toolkit label on all | writes/node join"
                        + " | writes in no-op reconcile | controller heap (MiB) | writes during convergence"
                        + " | node gate evaluations during convergence | CPU s: API server / controller + benchmark");
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
        try (KubernetesClient client =
                new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                        .withConfig(server.createClient().getConfiguration())
                        .withHttpClientFactory(
                                new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory())
                        .build()) {
            try (InputStream in =
                    ClusterPolicy.class.getResourceAsStream(
                            "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
                client.apiextensions().v1().customResourceDefinitions().load(in).create();
            }
            for (int i = 0; i < n; i++) {
                client.nodes()
                        .resource(
                                new NodeBuilder()
                                        .withNewMetadata()
                                        .withName("gpu-" + i)
                                        .withLabels(Map.of(SIM, "true"))
                                        .endMetadata()
                                        .build())
                        .create();
            }
            LabelCounter counter =
                    new LabelCounter(client); // before the heap baseline: not the controller's
            waitFor(() -> counter.size() == n, 120);
            long heapBefore = usedHeapAfterGc();
            drain(server);
            ControllerRuntime runtime =
                    ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
            ClusterPolicy p = new ClusterPolicy();
            p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
            ClusterPolicySpec spec = new ClusterPolicySpec();
            SimulationSpec sim = new SimulationSpec();
            sim.setEnabled(true);
            spec.setSimulation(sim);
            p.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
            double[] cpuBefore = cpuSeconds();
            long t0 = System.nanoTime();
            client.resource(p).create();
            waitFor(() -> counter.labelled(Operand.DRIVER) == n, 600);
            double labelAll = (System.nanoTime() - t0) / 1e9;

            // as the DaemonSet controller + kubelet: a Ready driver pod on every node
            DaemonSet driver =
                    client.apps()
                            .daemonSets()
                            .inNamespace(NS)
                            .withName(Operand.DRIVER.daemonSetName())
                            .get();
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                readyPod(client, driver, "gpu-" + i);
            }
            double createdAll = (System.nanoTime() - t1) / 1e9;
            waitFor(() -> counter.labelled(Operand.CONTAINER_TOOLKIT) == n, 600);
            double toolkitAll = (System.nanoTime() - t1) / 1e9;
            long evaluations = runtime.metrics().gateEvaluations();
            Thread.sleep(2000);
            int convergenceWrites =
                    drain(server) - n - 1; // minus the policy and the pods the benchmark created

            // one node joins
            client.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName("joiner")
                                    .withLabels(Map.of(SIM, "true"))
                                    .endMetadata()
                                    .build())
                    .create();
            waitFor(
                    () ->
                            "true"
                                    .equals(
                                            client.nodes()
                                                    .withName("joiner")
                                                    .get()
                                                    .getMetadata()
                                                    .getLabels()
                                                    .get(Operand.DRIVER.deployLabel())),
                    120);
            Thread.sleep(
                    3000); // the follow-up reconcile (our own patch event) must write nothing more
            int joinWrites = drain(server) - 1; // minus the test's own node create

            // no-op reconcile: a pod event that changes nothing the controller acts on
            long before = runtime.metrics().reconciliations();
            client.pods()
                    .inNamespace(NS)
                    .withName(Operand.DRIVER.daemonSetName() + "-gpu-0")
                    .edit(
                            pod -> {
                                pod.getMetadata().getAnnotations().put("touched", "yes");
                                return pod;
                            });
            waitFor(() -> runtime.metrics().reconciliations() > before, 120);
            Thread.sleep(3000);
            int noopWrites = drain(server) - 1; // minus the test's own pod edit

            long heap = usedHeapAfterGc() - heapBefore;
            double[] cpu = cpuSeconds();
            System.out.printf(
                    "%d | %.1f s | %.1f s (last pod created at %.1f s) | %d | %d | %.1f | %d | %d"
                            + " | %.1f / %.1f%n",
                    n,
                    labelAll,
                    toolkitAll,
                    createdAll,
                    joinWrites,
                    noopWrites,
                    heap / 1048576.0,
                    convergenceWrites,
                    evaluations,
                    cpu[0] - cpuBefore[0],
                    cpu[1] - cpuBefore[1]);
            counter.close();
            runtime.close();
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
        private final io.fabric8.kubernetes.client.informers.SharedIndexInformer<Node> informer;

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

        @Override
        public void close() {
            informer.close();
        }
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

    private static int drain(KubernetesMockServer server) throws InterruptedException {
        int writes = 0;
        RecordedRequest r;
        while ((r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null) {
            if (List.of("POST", "PUT", "PATCH", "DELETE").contains(r.getMethod())) {
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

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
