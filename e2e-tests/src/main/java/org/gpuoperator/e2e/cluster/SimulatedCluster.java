package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.gpuoperator.e2e.apiserver.FilePodLogSource;
import org.gpuoperator.e2e.images.LocalImages;
import org.gpuoperator.e2e.node.ClusterAccess;
import org.gpuoperator.e2e.node.NodeNetwork;
import org.gpuoperator.e2e.node.PodMode;
import org.gpuoperator.e2e.node.PodSpecMapping;
import org.gpuoperator.e2e.node.PrivateContainerd;
import org.gpuoperator.e2e.node.RestartBackoff;
import org.gpuoperator.e2e.node.SimulatedNode;

/**
 * A Kubernetes cluster on one machine, without Docker: the fabric8 mock API server in CRUD mode
 * with our CRDs, the operator's controller, and N simulated GPU nodes whose operand pods run as
 * real agent processes. Everything lives under one temp directory that {@link #close()} removes.
 *
 * <p>One loop thread plays the cluster's missing parts every {@link #TICK_MS} ms: the scheduler
 * (for pods created without a node), the DaemonSet controller, and on each node the kubelet (device
 * admission, pods, readiness, restarts, allocatable) and the containerd supervisor.
 */
public final class SimulatedCluster implements AutoCloseable {

    public static final String NAMESPACE = "gpu-operator";
    public static final String SIMULATED_LABEL = "gpuoperator.org/simulated-gpu";

    /** How the first event begins: it says how this cluster runs its pods. */
    public static final String POD_MODE_EVENT = "pods run as";

    static final long TICK_MS = 200;

    /** Set to true to keep the work dir (agent logs, host roots) after close, for debugging. */
    public static final String KEEP_PROPERTY = "e2e.keepWorkDir";

    /**
     * ClusterPolicy as a generic resource: the harness reads and writes it as YAML, the way an
     * admin does.
     */
    public static final ResourceDefinitionContext CLUSTER_POLICIES =
            new ResourceDefinitionContext.Builder()
                    .withGroup("nvidia.com")
                    .withVersion("v1")
                    .withKind("ClusterPolicy")
                    .withPlural("clusterpolicies")
                    .withNamespaced(false)
                    .build();

    /**
     * @param repoRoot the repository (agent jars under {@code <module>/target}, CRDs under {@code
     *     deploy/crds})
     * @param containerd run a private containerd per node (only where the binary exists)
     * @param containers run pods as containers in each node's containerd ({@link
     *     PodMode.Containers}) where this machine allows it; otherwise, or when false, as host
     *     processes
     * @param controller starts the operator's controller against a client; the handle stops it
     * @param events progress lines for a person or a test log
     */
    public record Options(
            Path repoRoot,
            boolean containerd,
            boolean containers,
            Function<KubernetesClient, AutoCloseable> controller,
            Consumer<String> events) {

        /** Pods as containers wherever there is a containerd and this machine allows it. */
        public Options(
                Path repoRoot,
                boolean containerd,
                Function<KubernetesClient, AutoCloseable> controller,
                Consumer<String> events) {
            this(repoRoot, containerd, containerd, controller, events);
        }
    }

    private final Options options;
    private final Path workDir;
    private final ApiServer api;

    /**
     * How pods run on every node of this cluster: containers (with the image archives) or
     * processes.
     */
    private final PodMode podMode;

    private final PodSpecMapping mapping;
    private final DaemonSetEmulator daemonSets;
    private final GarbageCollector garbageCollector;
    private final SchedulerEmulator scheduler;
    private int ticks;
    private final Map<String, SimulatedNode> nodes = new ConcurrentHashMap<>();
    private final SharedIndexInformer<DaemonSet> dsInformer;
    private final SharedIndexInformer<Pod> podInformer;
    private final SharedIndexInformer<Node> nodeInformer;
    private final ScheduledExecutorService loop;
    private AutoCloseable controller;

    private SimulatedCluster(Options options, Path workDir, ApiServer api, PodMode podMode) {
        this.options = options;
        this.workDir = workDir;
        this.api = api;
        this.podMode = podMode;
        String java = ProcessHandle.current().info().command().orElse("java");
        this.mapping = new PodSpecMapping(options.repoRoot(), java);
        KubernetesClient c = api.client();
        this.daemonSets = new DaemonSetEmulator(c, NAMESPACE, options.events());
        this.garbageCollector = new GarbageCollector(c, NAMESPACE, options.events());
        this.dsInformer = c.apps().daemonSets().inNamespace(NAMESPACE).inform();
        this.scheduler = new SchedulerEmulator(c, options.events());
        // every namespace: workload pods (kubectl apply in "default") run on the nodes too
        this.podInformer = c.pods().inAnyNamespace().inform();
        this.nodeInformer = c.nodes().inform();
        this.loop =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "simulated-cluster");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** Starts the API server and the loop; add nodes, then {@link #startController()}. */
    public static SimulatedCluster start(Options options) throws IOException {
        // Short paths: unix socket paths must stay under 108 bytes.
        Path work = Files.createTempDirectory(Path.of("/tmp"), "gpuop-");
        String unavailable =
                !options.containers()
                        ? "process mode was asked for"
                        : !options.containerd()
                                ? "the cluster runs no containerd"
                                : PodMode.containersUnavailable();
        ApiServer api;
        PodMode mode;
        if (unavailable == null) {
            // Pods reach the API server as on a real node: HTTPS through their node's gateway,
            // in-cluster config.
            api =
                    ApiServer.start(
                            options.repoRoot().resolve("deploy/crds"),
                            work,
                            NAMESPACE,
                            ApiServer.Options.https("0.0.0.0", NodeNetwork.allGateways()));
            List<Path> archives = new ArrayList<>();
            try {
                for (LocalImages.LocalImage image :
                        new LocalImages(
                                        options.repoRoot(),
                                        LocalImages.defaultOutDir(options.repoRoot()))
                                .buildAll()
                                .values()) {
                    archives.add(image.archive());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while building the local images", e);
            }
            mode =
                    new PodMode.Containers(
                            new ClusterAccess(
                                    null, api.port(), ApiServer.TOKEN, api.caCertificatePem()),
                            RestartBackoff.KUBELET,
                            archives);
            options.events()
                    .accept(
                            POD_MODE_EVENT
                                    + " containers in each node's containerd (images: "
                                    + LocalImages.defaultOutDir(options.repoRoot())
                                    + ")");
        } else {
            api = ApiServer.start(options.repoRoot().resolve("deploy/crds"), work, NAMESPACE);
            mode = PodMode.PROCESSES;
            options.events()
                    .accept(POD_MODE_EVENT + " host processes (process mode): " + unavailable);
        }
        SimulatedCluster cluster = new SimulatedCluster(options, work, api, mode);
        // kubectl logs reads what each node's kubelet wrote under its /var/log/pods
        api.podLogSource(
                new FilePodLogSource(
                        node ->
                                Optional.ofNullable(cluster.nodes.get(node))
                                        .map(SimulatedNode::root)));
        cluster.loop.scheduleWithFixedDelay(cluster::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        return cluster;
    }

    public KubernetesClient client() {
        return api.client();
    }

    public ApiServer api() {
        return api;
    }

    public Path workDir() {
        return workDir;
    }

    public void startController() throws Exception {
        if (controller == null) {
            controller = options.controller().apply(api.client());
        }
    }

    public void stopController() throws Exception {
        if (controller != null) {
            controller.close();
            controller = null;
        }
    }

    /**
     * Adds a node marked as a simulated GPU node, with its host root, kubelet and (optionally)
     * containerd.
     */
    public SimulatedNode addGpuNode(String name) throws IOException, InterruptedException {
        SimulatedNode node =
                SimulatedNode.start(
                        name,
                        workDir.resolve(name),
                        api.client(),
                        mapping,
                        Map.of("KUBECONFIG", api.kubeconfig().toString()),
                        options.containerd() && PrivateContainerd.installed(),
                        podMode,
                        options.events());
        nodes.put(name, node);
        createNode(name, node.address(), Map.of(SIMULATED_LABEL, "true"));
        if (node.containerd() != null) {
            node.containerd().awaitCri(java.time.Duration.ofSeconds(20));
        }
        return node;
    }

    /** Adds a node without GPUs: no operand may land on it. */
    public void addCpuNode(String name) {
        createNode(name, "127.0.0.1", Map.of());
    }

    /** Whether pods run as containers on this cluster's GPU nodes (else as host processes). */
    public boolean podsAsContainers() {
        return podMode instanceof PodMode.Containers;
    }

    private void createNode(String name, String address, Map<String, String> extraLabels) {
        Node n =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels("kubernetes.io/hostname", name)
                        .addToLabels("kubernetes.io/os", "linux")
                        .addToLabels("kubernetes.io/arch", "amd64")
                        .addToLabels(extraLabels)
                        .endMetadata()
                        .withNewStatus()
                        .addNewAddress()
                        .withType("InternalIP")
                        .withAddress(address)
                        .endAddress()
                        .addNewAddress()
                        .withType("Hostname")
                        .withAddress(name)
                        .endAddress()
                        .addToCapacity("cpu", new Quantity("8"))
                        .addToCapacity("memory", new Quantity("32Gi"))
                        .addToCapacity("pods", new Quantity("110"))
                        .addToAllocatable("cpu", new Quantity("8"))
                        .addToAllocatable("memory", new Quantity("32Gi"))
                        .addToAllocatable("pods", new Quantity("110"))
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .withReason("KubeletReady")
                        .endCondition()
                        .withNewNodeInfo()
                        .withKernelVersion(System.getProperty("os.version"))
                        .withOperatingSystem("linux")
                        .withArchitecture("amd64")
                        .withContainerRuntimeVersion("containerd://simulated")
                        .withKubeletVersion("v1.33.1")
                        .withOsImage("simulated")
                        .endNodeInfo()
                        .endStatus()
                        .build();
        api.client().nodes().resource(n).create();
    }

    public SimulatedNode node(String name) {
        SimulatedNode n = nodes.get(name);
        if (n == null) {
            throw new IllegalArgumentException("no simulated GPU node " + name);
        }
        return n;
    }

    public List<SimulatedNode> gpuNodes() {
        return nodes.values().stream().sorted(Comparator.comparing(SimulatedNode::name)).toList();
    }

    /** Pods on {@code node}, of every namespace, from the informer cache. */
    public List<Pod> podsOn(String node) {
        return podInformer.getStore().list().stream()
                .filter(p -> node.equals(p.getSpec().getNodeName()))
                .toList();
    }

    /**
     * The operator's pods on {@code node} (namespace {@value #NAMESPACE}), from the informer cache.
     */
    public List<Pod> operandPodsOn(String node) {
        return podsOn(node).stream()
                .filter(p -> NAMESPACE.equals(p.getMetadata().getNamespace()))
                .toList();
    }

    private void tick() {
        try {
            if (++ticks % 5 == 0) { // once a second is plenty for garbage collection
                garbageCollector.sync();
            }
            List<Pod> pods = podInformer.getStore().list();
            scheduler.sync(nodeInformer.getStore().list(), pods);
            // DaemonSet pods are told apart by their owner reference, so pods of other namespaces
            // do not disturb it
            daemonSets.sync(dsInformer.getStore().list(), nodeInformer.getStore().list(), pods);
            for (SimulatedNode n : nodes.values()) {
                List<Pod> mine = new ArrayList<>();
                for (Pod p : pods) {
                    if (n.name().equals(p.getSpec().getNodeName())) {
                        mine.add(p);
                    }
                }
                n.sync(mine);
            }
        } catch (RuntimeException e) {
            options.events().accept("simulated cluster: " + e);
        }
    }

    /**
     * Stops the controller, every agent (SIGTERM, so they clean up), the node services and the API
     * server.
     */
    @Override
    public void close() {
        try {
            stopController();
        } catch (Exception e) {
            options.events().accept("stopping the controller: " + e);
        }
        loop.shutdownNow();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Agents first, concurrently (cleanup on SIGTERM), then the services they talk to.
        // one thread per node, not a parallel stream: stopping pods blocks, and the common pool
        // serves others
        List<Thread> stops = new ArrayList<>();
        for (SimulatedNode n : nodes.values()) {
            stops.add(
                    Thread.ofVirtual().name("stop-pods-" + n.name()).start(() -> n.pods().close()));
        }
        for (Thread t : stops) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        nodes.values().forEach(SimulatedNode::close);
        dsInformer.close();
        podInformer.close();
        nodeInformer.close();
        api.close();
        if (Boolean.getBoolean(KEEP_PROPERTY)) {
            options.events().accept("kept " + workDir + " (-D" + KEEP_PROPERTY + "=true)");
        } else {
            deleteRecursively(workDir);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: a temp dir
        }
    }
}
