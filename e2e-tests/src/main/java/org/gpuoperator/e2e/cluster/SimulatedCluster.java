package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import org.gpuoperator.e2e.node.RunOwner;
import org.gpuoperator.e2e.node.SimulatedNode;

/**
 * A Kubernetes cluster on one machine, without Docker: the fabric8 mock API server in CRUD mode
 * with our CRDs, the operator's controller, and N simulated GPU nodes whose operand pods run as
 * real agent processes. Everything lives under one temp directory that {@link #close()} removes.
 *
 * <p>One loop thread plays the cluster's missing parts every {@link #TICK_MS} ms: the scheduler
 * (for pods created without a node), the Deployment, ReplicaSet and DaemonSet controllers, the
 * garbage collector, and on each node the kubelet (device admission, pods, readiness, restarts,
 * allocatable) and the containerd supervisor.
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
    private final DeploymentEmulator deployments;
    private final ReplicaSetEmulator replicaSets;
    private final GarbageCollector garbageCollector;
    private final SchedulerEmulator scheduler;
    private int ticks;
    private final Map<String, SimulatedNode> nodes = new ConcurrentHashMap<>();

    /** Nodes without GPUs that run pods: where the operator's own pod goes. */
    private final Map<String, SimulatedNode> cpuNodes = new ConcurrentHashMap<>();

    private final SharedIndexInformer<DaemonSet> dsInformer;
    private final SharedIndexInformer<Deployment> deploymentInformer;
    private final SharedIndexInformer<ReplicaSet> rsInformer;
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
        this.deployments = new DeploymentEmulator(c, options.events());
        this.replicaSets = new ReplicaSetEmulator(c, options.events());
        this.deploymentInformer = c.apps().deployments().inAnyNamespace().inform();
        this.rsInformer = c.apps().replicaSets().inAnyNamespace().inform();
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
        RunOwner.record(work); // a later run's clean-up leaves the dir alone while this JVM runs
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
                                        .or(() -> Optional.ofNullable(cluster.cpuNodes.get(node)))
                                        .map(SimulatedNode::root)));
        // kubectl exec runs commands through the pod's node's runner (containerd mode only)
        api.podExec(
                (pod, container) ->
                        Optional.ofNullable(cluster.nodes.get(pod.nodeName()))
                                .or(() -> Optional.ofNullable(cluster.cpuNodes.get(pod.nodeName())))
                                .orElseThrow(
                                        () ->
                                                new UnsupportedOperationException(
                                                        "node "
                                                                + pod.nodeName()
                                                                + " is not a simulated node"))
                                .pods()
                                .execTarget(pod.uid(), container));
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
        SimulatedNode node = startNode(name);
        nodes.put(name, node);
        createNode(name, node.address(), Map.of(SIMULATED_LABEL, "true"), List.of());
        if (node.containerd() != null) {
            node.containerd().awaitCri(java.time.Duration.ofSeconds(20));
        }
        return node;
    }

    private SimulatedNode startNode(String name) throws IOException, InterruptedException {
        return SimulatedNode.start(
                name,
                workDir.resolve(name),
                api.client(),
                mapping,
                Map.of("KUBECONFIG", api.kubeconfig().toString()),
                options.containerd() && PrivateContainerd.installed(),
                podMode,
                options.events());
    }

    /**
     * Adds a node without GPUs and without a kubelet: a Node object only, on which no pod runs (the
     * scheduler passes it by) and no operand may land.
     */
    public void addCpuNode(String name) {
        createNode(name, "127.0.0.1", Map.of(), List.of());
    }

    /** kind's control-plane role label and taint, which the operator's Deployment tolerates. */
    public static final String CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane";

    /**
     * Adds a node without GPUs that runs pods (its own kubelet and containerd, as a GPU node has),
     * labelled and tainted {@value #CONTROL_PLANE_ROLE}{@code :NoSchedule} as kind's control-plane
     * node is: only pods that tolerate the taint, such as the operator's, are scheduled there.
     */
    public SimulatedNode addControlPlaneNode(String name) throws IOException, InterruptedException {
        SimulatedNode node = startNode(name);
        cpuNodes.put(name, node);
        createNode(
                name,
                node.address(),
                Map.of(CONTROL_PLANE_ROLE, ""),
                List.of(
                        new io.fabric8.kubernetes.api.model.TaintBuilder()
                                .withKey(CONTROL_PLANE_ROLE)
                                .withEffect("NoSchedule")
                                .build()));
        if (node.containerd() != null) {
            node.containerd().awaitCri(java.time.Duration.ofSeconds(20));
        }
        return node;
    }

    /** The nodes without GPUs that run pods ({@link #addControlPlaneNode}). */
    public List<SimulatedNode> cpuNodes() {
        return cpuNodes.values().stream()
                .sorted(Comparator.comparing(SimulatedNode::name))
                .toList();
    }

    /** The manifests an admin applies to install the operator (the CRDs are in already). */
    static final List<String> INSTALL_MANIFESTS =
            List.of("deploy/namespace.yaml", "deploy/rbac.yaml", "deploy/operator.yaml");

    /** The control-plane node {@link #installOperator} adds when the cluster has none. */
    public static final String CONTROL_PLANE_NODE = "control-plane";

    /**
     * Installs the operator as an admin does, instead of {@link #startController()}: applies {@link
     * #INSTALL_MANIFESTS} unchanged (its Deployment runs the local {@code operator-controller}
     * image with {@code --leader-elect}), so that the Deployment emulator makes its pod and the
     * scheduler places it on a control-plane node ({@value #CONTROL_PLANE_NODE} is added when there
     * is none); the pod reaches the API server in-cluster, as the operand pods do. Where pods run
     * as host processes there is no image to run: the controller starts in-process instead, and an
     * event says so.
     */
    public void installOperator() throws Exception {
        if (!podsAsContainers()) {
            options.events()
                    .accept(
                            "the controller runs in-process: pods run as host processes here, and"
                                    + " its image needs containers");
            startController();
            return;
        }
        if (cpuNodes.isEmpty()) {
            addControlPlaneNode(CONTROL_PLANE_NODE);
        }
        KubernetesClient c = api.client();
        for (String manifest : INSTALL_MANIFESTS) {
            try (var in = Files.newInputStream(options.repoRoot().resolve(manifest))) {
                for (var item : c.load(in).items()) {
                    c.resource(item)
                            .createOr(
                                    io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
                }
            }
        }
        options.events().accept("installed the operator: " + String.join(", ", INSTALL_MANIFESTS));
    }

    /**
     * Installs the operator from a chart's rendered output ({@code helm template}, multi-document
     * YAML) as {@code kubectl apply -f deploy/namespace.yaml} and {@code helm install} do: the
     * namespace, then every object (the CRDs are in already), each ClusterPolicy last. Where pods
     * run as host processes the controller starts in-process instead of the Deployment, as in
     * {@link #installOperator()}. Returns the objects applied.
     */
    public List<io.fabric8.kubernetes.api.model.HasMetadata> installChart(String rendered)
            throws Exception {
        KubernetesClient c = api.client();
        List<io.fabric8.kubernetes.api.model.HasMetadata> objects =
                c.load(new java.io.ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)))
                        .items();
        boolean containers = podsAsContainers();
        if (containers) {
            if (cpuNodes.isEmpty()) {
                addControlPlaneNode(CONTROL_PLANE_NODE);
            }
        } else {
            options.events()
                    .accept(
                            "the controller runs in-process: pods run as host processes here, and"
                                    + " its image needs containers");
            startController();
        }
        try (var in = Files.newInputStream(options.repoRoot().resolve("deploy/namespace.yaml"))) {
            for (var item : c.load(in).items()) {
                c.resource(item)
                        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
            }
        }
        List<io.fabric8.kubernetes.api.model.HasMetadata> applied = new ArrayList<>();
        List<io.fabric8.kubernetes.api.model.HasMetadata> policies = new ArrayList<>();
        for (var item : objects) {
            if (item.getKind().equals("ClusterPolicy")) {
                policies.add(item);
            } else if (containers || !item.getKind().equals("Deployment")) {
                applied.add(item);
            }
        }
        applied.addAll(policies);
        for (var item : applied) {
            if (item.getKind().equals("ClusterPolicy")) {
                c.genericKubernetesResources(CLUSTER_POLICIES)
                        .resource(
                                io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                                        io.fabric8.kubernetes.client.utils.Serialization.asYaml(
                                                item),
                                        GenericKubernetesResource.class))
                        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
            } else {
                c.resource(item)
                        .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
            }
        }
        options.events()
                .accept(
                        "installed the chart's objects: "
                                + String.join(
                                        ", ",
                                        applied.stream()
                                                .map(
                                                        o ->
                                                                o.getKind()
                                                                        + "/"
                                                                        + o.getMetadata().getName())
                                                .toList()));
        return applied;
    }

    /** Whether pods run as containers on this cluster's GPU nodes (else as host processes). */
    public boolean podsAsContainers() {
        return podMode instanceof PodMode.Containers;
    }

    private void createNode(
            String name,
            String address,
            Map<String, String> extraLabels,
            List<io.fabric8.kubernetes.api.model.Taint> taints) {
        Node n =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels("kubernetes.io/hostname", name)
                        .addToLabels("kubernetes.io/os", "linux")
                        .addToLabels("kubernetes.io/arch", "amd64")
                        .addToLabels(extraLabels)
                        // what the kubelet's registration and the node controller put on every node
                        .addToAnnotations(
                                "volumes.kubernetes.io/controller-managed-attach-detach", "true")
                        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                        .endMetadata()
                        .withNewSpec()
                        .withTaints(taints.isEmpty() ? null : taints)
                        .endSpec()
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

    private List<SimulatedNode> allNodes() {
        List<SimulatedNode> all = new ArrayList<>(nodes.values());
        all.addAll(cpuNodes.values());
        return all;
    }

    private void tick() {
        try {
            List<Pod> pods = podInformer.getStore().list();
            List<Deployment> deploymentList = deploymentInformer.getStore().list();
            List<ReplicaSet> rsList = rsInformer.getStore().list();
            if (++ticks % 5 == 0) { // once a second is plenty for garbage collection
                garbageCollector.sync();
                garbageCollector.syncWorkloads(deploymentList, rsList, pods);
            }
            deployments.sync(deploymentList, rsList);
            replicaSets.sync(rsList, pods);
            scheduler.sync(
                    nodeInformer.getStore().list(),
                    pods,
                    n ->
                            nodes.containsKey(n.getMetadata().getName())
                                    || cpuNodes.containsKey(n.getMetadata().getName()),
                    "run no simulated kubelet");
            // DaemonSet pods are told apart by their owner reference, so pods of other namespaces
            // do not disturb it
            daemonSets.sync(dsInformer.getStore().list(), nodeInformer.getStore().list(), pods);
            for (SimulatedNode n : allNodes()) {
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
        for (SimulatedNode n : allNodes()) {
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
        allNodes().forEach(SimulatedNode::close);
        dsInformer.close();
        deploymentInformer.close();
        rsInformer.close();
        podInformer.close();
        nodeInformer.close();
        api.close();
        if (Boolean.getBoolean(KEEP_PROPERTY)) {
            // kept on purpose: without an owner record no later run's clean-up removes it
            RunOwner.forget(workDir);
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
