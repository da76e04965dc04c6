package org.gpuoperator.validator;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.FirstRequestWarmUp;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.validator.cuda.CudaCheck;
import org.gpuoperator.validator.cuda.WorkloadRunner;
import org.gpuoperator.validator.driver.DriverCheck;
import org.gpuoperator.validator.driver.InventoryProbe;
import org.gpuoperator.validator.plugin.PluginCheck;
import org.gpuoperator.validator.report.Layer;
import org.gpuoperator.validator.report.MetricsServer;
import org.gpuoperator.validator.report.NodeAnnotations;
import org.gpuoperator.validator.toolkit.ToolkitCheck;
import org.gpuoperator.validator.workload.WorkloadCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Entry point of {@code validator}: with no subcommand the node daemon that validates driver,
 * toolkit, cuda and plugin in that order; {@code validator workload cuda} runs inside its workload
 * pods.
 */
@Command(
        name = "validator",
        sortOptions = false,
        description = {
            "Validates this node's GPU stack layer by layer (driver, toolkit, cuda, plugin), writes the"
                    + " readiness files of the layers no enabled operand owns, and reports on the"
                    + " Node (annotations), /metrics and /readyz."
        })
public final class ValidatorMain implements Callable<Integer>, AgentCommand.Subcommands {

    @Override
    public List<Class<?>> subcommands() {
        return List.of(WorkloadCommand.class);
    }

    @Mixin AgentOptions agentOptions;
    @Mixin GpuSourceOptions gpuSource;

    @Option(
            names = "--driver-managed",
            defaultValue = "${env:DRIVER_MANAGED:-false}",
            arity = "0..1",
            paramLabel = "BOOL",
            description =
                    "The driver operand is enabled: wait for its driver-ready, never write it. Env:"
                            + " DRIVER_MANAGED.")
    boolean driverManaged;

    @Option(
            names = "--toolkit-managed",
            defaultValue = "${env:TOOLKIT_MANAGED:-false}",
            arity = "0..1",
            paramLabel = "BOOL",
            description =
                    "The toolkit operand is enabled: wait for its toolkit-ready, never write it."
                            + " Env: TOOLKIT_MANAGED.")
    boolean toolkitManaged;

    @Option(
            names = "--plugin-managed",
            defaultValue = "${env:PLUGIN_MANAGED:-false}",
            arity = "0..1",
            paramLabel = "BOOL",
            description =
                    "The device plugin is enabled: check it; when false the plugin check is"
                            + " disabled. Env: PLUGIN_MANAGED.")
    boolean pluginManaged;

    @Option(
            names = "--driver-root",
            defaultValue = "${env:NVIDIA_DRIVER_ROOT}",
            paramLabel = "DIR",
            description =
                    "The driver root as the host sees it (default: /run/nvidia/driver when the"
                            + " driver is managed, / otherwise). Env: NVIDIA_DRIVER_ROOT.")
    String driverRoot;

    @Option(
            names = "--disable-dev-char-symlink-creation",
            defaultValue = "${env:DISABLE_DEV_CHAR_SYMLINK_CREATION:-false}",
            arity = "0..1",
            paramLabel = "BOOL",
            description =
                    "Do not create the /dev/char links for the NVIDIA device nodes. Env:"
                            + " DISABLE_DEV_CHAR_SYMLINK_CREATION.")
    boolean disableDevCharLinks;

    @Option(
            names = "--runtime-socket",
            defaultValue = "${env:RUNTIME_SOCKET:-/run/containerd/containerd.sock}",
            paramLabel = "FILE",
            description =
                    "The container runtime's CRI socket (default ${DEFAULT-VALUE}). Env: RUNTIME_SOCKET.")
    Path runtimeSocket;

    @Option(
            names = "--runtime-handler",
            defaultValue = "${env:RUNTIME_HANDLER:-nvidia}",
            paramLabel = "NAME",
            description =
                    "The runtime handler the toolkit registers (default ${DEFAULT-VALUE}). Env: RUNTIME_HANDLER.")
    String runtimeHandler;

    @Option(
            names = "--runtime-class",
            defaultValue = "${env:RUNTIME_CLASS:-nvidia}",
            paramLabel = "NAME",
            description =
                    "RuntimeClass of the workload pods (default ${DEFAULT-VALUE}). Env: RUNTIME_CLASS.")
    String runtimeClass;

    @Option(
            names = "--workload-image",
            defaultValue = "${env:WORKLOAD_IMAGE}",
            paramLabel = "IMAGE",
            description =
                    "Image of the workload containers and pods: the validator's own. Env: WORKLOAD_IMAGE.")
    String workloadImage;

    @Option(
            names = "--namespace",
            defaultValue = "${env:NAMESPACE}",
            paramLabel = "NS",
            description = "Namespace of the workload pods (the validator's own). Env: NAMESPACE.")
    String namespace;

    @Option(
            names = "--with-workload",
            defaultValue = "${env:WITH_WORKLOAD:-false}",
            arity = "0..1",
            paramLabel = "BOOL",
            description =
                    "The plugin check also runs a pod that requests one GPU. Env: WITH_WORKLOAD.")
    boolean withWorkload;

    @Option(
            names = "--recheck-interval",
            defaultValue = "${env:RECHECK_INTERVAL:-5m}",
            converter = Durations.Converter.class,
            paramLabel = "DURATION",
            description =
                    "Re-check every layer this often once all are ready (default ${DEFAULT-VALUE}). Env: RECHECK_INTERVAL.")
    Duration recheckInterval;

    @Option(
            names = "--workload-timeout",
            defaultValue = "${env:WORKLOAD_TIMEOUT:-5m}",
            converter = Durations.Converter.class,
            paramLabel = "DURATION",
            description =
                    "How long a workload container or pod may take (default ${DEFAULT-VALUE}). Env: WORKLOAD_TIMEOUT.")
    Duration workloadTimeout;

    @Option(
            names = "--metrics-address",
            defaultValue = "${env:METRICS_ADDRESS:-:8000}",
            paramLabel = "HOST:PORT",
            description = "Serve /metrics here (default ${DEFAULT-VALUE}). Env: METRICS_ADDRESS.")
    String metricsAddress;

    private final EventLog log = new EventLog("validator");

    /** The driver root as the host sees it. */
    String effectiveDriverRoot() {
        if (driverRoot != null && !driverRoot.isBlank()) {
            return driverRoot;
        }
        return driverManaged ? "/run/nvidia/driver" : "/";
    }

    @Override
    public Integer call() throws Exception {
        gpuSource.source(); // a malformed --gpu-source fails before anything runs
        if (workloadImage == null || workloadImage.isBlank()) {
            throw new IllegalArgumentException("--workload-image (env WORKLOAD_IMAGE) is required");
        }
        if (namespace == null || namespace.isBlank()) {
            throw new IllegalArgumentException("--namespace (env NAMESPACE) is required");
        }
        String node = gpuSource.nodeName();
        ToolkitCheck.warmUp(runtimeSocket); // the first round's second check
        try (BackgroundClient client = new BackgroundClient()) {
            WorkloadRunner runner = new WorkloadRunner(client, Duration.ofSeconds(2));
            DriverCheck driver =
                    new DriverCheck(
                            new DriverCheck.Settings(
                                    gpuSource.hostRoot(),
                                    effectiveDriverRoot(),
                                    !driverManaged,
                                    !disableDevCharLinks),
                            new InventoryProbe(gpuSource));
            ToolkitCheck toolkit =
                    new ToolkitCheck(
                            new ToolkitCheck.Settings(
                                    runtimeSocket,
                                    runtimeHandler,
                                    workloadImage,
                                    ToolkitCheck.WORKLOAD_ARGS,
                                    node,
                                    workloadTimeout));
            CudaCheck cuda =
                    new CudaCheck(
                            client,
                            runner,
                            new CudaCheck.Settings(
                                    namespace,
                                    node,
                                    runtimeClass,
                                    workloadImage,
                                    pluginManaged,
                                    workloadTimeout));
            PluginCheck plugin =
                    new PluginCheck(
                            client,
                            runner,
                            new PluginCheck.Settings(
                                    namespace,
                                    node,
                                    runtimeClass,
                                    workloadImage,
                                    withWorkload,
                                    workloadTimeout));
            Map<Layer, ValidatorDaemon.Check> checks = new EnumMap<>(Layer.class);
            checks.put(Layer.DRIVER, driver::run);
            checks.put(Layer.TOOLKIT, toolkit::run);
            checks.put(Layer.CUDA, cuda::run);
            checks.put(Layer.PLUGIN, plugin::run);
            Map<Layer, Boolean> managed = new EnumMap<>(Layer.class);
            managed.put(Layer.DRIVER, driverManaged);
            managed.put(Layer.TOOLKIT, toolkitManaged);
            managed.put(Layer.CUDA, false);
            managed.put(Layer.PLUGIN, pluginManaged);
            ValidatorDaemon daemon =
                    new ValidatorDaemon(
                            checks,
                            managed,
                            agentOptions.readiness(),
                            new NodeAnnotations(client, node, System.getenv("POD_NAME")),
                            log,
                            recheckInterval,
                            new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(30)));
            log.info(
                    "starting",
                    "node",
                    node,
                    "driver-managed",
                    driverManaged,
                    "toolkit-managed",
                    toolkitManaged,
                    "plugin-managed",
                    pluginManaged,
                    "driver-root",
                    effectiveDriverRoot());
            try (HealthServer health =
                            HealthServer.start(
                                    agentOptions.healthAddress(), () -> daemon.report().ready());
                    MetricsServer metrics =
                            MetricsServer.start(metricsAddress, () -> daemon.report().metrics())) {
                Thread main = Thread.currentThread();
                java.util.concurrent.CountDownLatch closed =
                        new java.util.concurrent.CountDownLatch(1);
                // SIGTERM: end the wait or the running check, then let main remove its files
                Thread hook =
                        Thread.ofPlatform()
                                .name("shutdown")
                                .unstarted(
                                        () -> {
                                            daemon.stop();
                                            main.interrupt();
                                            try {
                                                closed.await(
                                                        20, java.util.concurrent.TimeUnit.SECONDS);
                                            } catch (InterruptedException e) {
                                                Thread.currentThread().interrupt();
                                            }
                                        });
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    daemon.run();
                } catch (InterruptedException e) {
                    // stopped while a check ran
                } finally {
                    daemon.close();
                    log.info("stopped");
                    closed.countDown();
                }
            }
        }
        return 0;
    }

    public static void main(String[] args) {
        FirstRequestWarmUp.start(); // its first round's checks call the API
        AgentCommand.exit(new ValidatorMain(), args);
    }
}
