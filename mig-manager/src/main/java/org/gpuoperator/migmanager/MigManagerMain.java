package org.gpuoperator.migmanager;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.gpuoperator.migmanager.agent.MigManagerAgent;
import org.gpuoperator.migmanager.agent.MigPlanning;
import org.gpuoperator.migmanager.agent.ToolkitCdiFollow;
import org.gpuoperator.migmanager.reconcile.HostReboot;
import org.gpuoperator.migmanager.reconcile.KubeMigNodeAccess;
import org.gpuoperator.migmanager.reconcile.MigDecision;
import org.gpuoperator.migmanager.reconcile.MigReconciler;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.FirstRequestWarmUp;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.labels.AgentKubeClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Entry point of {@code mig-manager}: keeps each GPU of its node in the MIG layout that the node's
 * {@code nvidia.com/mig.config} label names, from a mig-parted config file (upstream's mounted
 * ConfigMap).
 */
@Command(
        name = "mig-manager",
        sortOptions = false,
        description = {
            "Applies the MIG layout named by the node label nvidia.com/mig.config (mig-parted config v1):"
                    + " pauses the GPU clients, repartitions the GPUs, resumes the clients, and reports"
                    + " nvidia.com/mig.config.state."
        })
public final class MigManagerMain implements Callable<Integer> {

    @Option(
            names = "--config-file",
            defaultValue = "${env:CONFIG_FILE:-/mig-parted-config/config.yaml}",
            paramLabel = "FILE",
            description =
                    "The mig-parted config (version v1), read at every change, so an edited ConfigMap"
                            + " counts (default ${DEFAULT-VALUE}). Env: CONFIG_FILE.")
    Path configFile;

    @Option(
            names = "--default-config",
            defaultValue = "${env:DEFAULT_MIG_CONFIG}",
            paramLabel = "NAME",
            description =
                    "The layout of a node without the label (default: none, the GPUs are left as they"
                            + " are). Env: DEFAULT_MIG_CONFIG.")
    String defaultConfig;

    @Option(
            names = "--allow-repartition-with-gpu-pods",
            defaultValue = "${env:" + MigDecision.ALLOW_GPU_PODS_ENV + ":-false}",
            paramLabel = "BOOL",
            arity = "0..1",
            fallbackValue = "true",
            description =
                    "Repartition even while pods on the node hold GPUs (default false: refused with"
                            + " their names). Env: "
                            + MigDecision.ALLOW_GPU_PODS_ENV
                            + ".")
    boolean allowGpuPods;

    @Option(
            names = "--client-wait",
            defaultValue = "${env:CLIENT_WAIT:-5m}",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description =
                    "How long the paused GPU clients' pods may take to leave the node (default"
                            + " ${DEFAULT-VALUE}). Env: CLIENT_WAIT.")
    Duration clientWait;

    @Option(
            names = "--resync",
            defaultValue = "${env:RESYNC:-60s}",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description =
                    "How often a refused or failed change is tried again (default ${DEFAULT-VALUE})."
                            + " Env: RESYNC.")
    Duration resync;

    @Option(
            names = "--cdi-enabled",
            defaultValue = "${env:CDI_ENABLED:-false}",
            paramLabel = "BOOL",
            arity = "0..1",
            fallbackValue = "true",
            description =
                    "GPUs reach containers through CDI: after a change, wait (30 s at most) until the"
                            + " toolkit has rewritten the CDI spec before the clients come back."
                            + " Env: CDI_ENABLED.")
    boolean cdiEnabled;

    @Option(
            names = "--with-reboot",
            defaultValue = "${env:" + MigDecision.WITH_REBOOT_ENV + ":-false}",
            paramLabel = "BOOL",
            arity = "0..1",
            fallbackValue = "true",
            description =
                    "When a GPU needs a reset for a MIG mode change, set state rebooting and write the"
                            + " reboot sentinel (default false: the change fails with the reason). Env: "
                            + MigDecision.WITH_REBOOT_ENV
                            + ".")
    boolean withReboot;

    @Option(
            names = "--reboot-sentinel",
            defaultValue = "${env:REBOOT_SENTINEL:-" + HostReboot.DEFAULT_SENTINEL + "}",
            paramLabel = "FILE",
            description =
                    "The file written to ask for the node's reboot, for a reboot daemon such as kured"
                            + " (--reboot-sentinel) (default ${DEFAULT-VALUE}). Env: REBOOT_SENTINEL.")
    Path rebootSentinel;

    @Mixin GpuSourceOptions gpuSource;

    @Mixin AgentOptions agentOptions;

    private final EventLog log = new EventLog("mig-manager");

    @Override
    public Integer call() throws Exception {
        List<Gpu> gpus;
        try (GpuInventory inventory = gpuSource.open()) {
            gpus = inventory.gpus();
        }
        MigPartitioner partitioner = gpuSource.openPartitioner();
        String node = gpuSource.nodeName();
        CountDownLatch stopped = new CountDownLatch(1);
        try (KubernetesClient client = AgentKubeClient.build()) {
            AgentKubeClient.warmUpSerialization(
                    client, AgentKubeClient.OWN_NODE_TYPES); // the informer's list and watch follow
            MigReconciler reconciler =
                    new MigReconciler(
                            new KubeMigNodeAccess(client, node),
                            partitioner,
                            gpus.size(),
                            MigPlanning.fromFile(configFile, gpus, partitioner),
                            new ToolkitCdiFollow(
                                    agentOptions.readiness(),
                                    cdiEnabled,
                                    Duration.ofSeconds(30),
                                    Clock.systemUTC(),
                                    log),
                            defaultConfig,
                            allowGpuPods,
                            clientWait,
                            d -> Thread.sleep(d),
                            Clock.systemUTC(),
                            log,
                            withReboot ? HostReboot.sentinel(rebootSentinel) : null);
            MigManagerAgent agent = new MigManagerAgent(client, node, reconciler, resync, log);
            try (HealthServer health =
                    HealthServer.start(agentOptions.healthAddress(), agent::ready)) {
                Runtime.getRuntime()
                        .addShutdownHook(
                                Thread.ofPlatform()
                                        .unstarted(
                                                () -> {
                                                    log.info("stopping", "signal", "SIGTERM");
                                                    agent.close();
                                                    stopped.countDown();
                                                }));
                log.info(
                        "started",
                        "node",
                        node,
                        "gpus",
                        gpus.size(),
                        "source",
                        gpuSource.source(),
                        "config-file",
                        configFile,
                        "default-config",
                        defaultConfig == null ? "(none)" : defaultConfig,
                        "health",
                        ":" + health.port());
                agent.start();
                stopped.await();
            }
        }
        return 0;
    }

    public static void main(String[] args) {
        FirstRequestWarmUp.start(); // its informer's first request is on its way to ready
        HealthServer.lookUpProviderEarly(); // the class path's first scan, off the client's build
        AgentCommand.exit(new MigManagerMain(), args);
    }
}
