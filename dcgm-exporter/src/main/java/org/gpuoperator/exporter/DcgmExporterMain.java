package org.gpuoperator.exporter;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.gpuoperator.exporter.counters.CountersFile;
import org.gpuoperator.exporter.metrics.LabelNames;
import org.gpuoperator.exporter.podresources.DeviceCheckpoint;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HostPort;
import org.gpuoperator.node.deviceconfig.ConfigException;
import org.gpuoperator.node.deviceconfig.ConfigField;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Entry point of `dcgm-exporter`: GPU metrics for Prometheus, attributed to pods. */
@Command(
        name = "dcgm-exporter",
        description =
                "GPU metrics for Prometheus on /metrics (and /health), attributed to pods through the kubelet "
                        + "pod-resources API. Metric and label names are upstream dcgm-exporter's.")
public final class DcgmExporterMain implements java.util.concurrent.Callable<Integer> {

    @Option(
            names = {"-a", "--address"},
            defaultValue = "${env:DCGM_EXPORTER_LISTEN:-:9400}",
            paramLabel = "HOST:PORT",
            converter = HostPort.Converter.class,
            description = "Listen address (default ${DEFAULT-VALUE}). Env: DCGM_EXPORTER_LISTEN.")
    HostPort address;

    @Option(
            names = {"-f", "--collectors"},
            defaultValue = "${env:DCGM_EXPORTER_COLLECTORS}",
            paramLabel = "FILE",
            description =
                    "Counters file in upstream's CSV format 'field, type, help' (default: the built-in "
                            + "default-counters.csv). Env: DCGM_EXPORTER_COLLECTORS.")
    Path collectors;

    @Option(
            names = {"-c", "--collect-interval"},
            defaultValue = "${env:DCGM_EXPORTER_INTERVAL:-30000}",
            paramLabel = "MS",
            description =
                    "How often GPUs are sampled, in ms (default ${DEFAULT-VALUE}); scrapes "
                            + "serve the latest sample. Env: DCGM_EXPORTER_INTERVAL.")
    long collectIntervalMs;

    @Option(
            names = "--pod-resources-socket",
            defaultValue =
                    "${env:DCGM_POD_RESOURCES_KUBELET_SOCKET:-/var/lib/kubelet/pod-resources/kubelet.sock}",
            paramLabel = "PATH",
            description =
                    "kubelet pod-resources socket (default ${DEFAULT-VALUE}). "
                            + "Env: DCGM_POD_RESOURCES_KUBELET_SOCKET.")
    Path podResourcesSocket;

    @Option(
            names = "--pod-resources-cache",
            defaultValue = "1000",
            paramLabel = "MS",
            description =
                    "The kubelet's pod-resources List is asked every MS ms in the background (default "
                            + "${DEFAULT-VALUE}); 0 asks it on every scrape instead.")
    long podResourcesCacheMs;

    /** Under --host-root unless given. */
    static final String DEVICE_CHECKPOINT =
            "var/lib/kubelet/device-plugins/" + DeviceCheckpoint.FILE;

    @Option(
            names = "--kubelet-device-checkpoint",
            defaultValue = "${env:DCGM_EXPORTER_KUBELET_DEVICE_CHECKPOINT}",
            paramLabel = "FILE",
            description =
                    "The kubelet's device checkpoint (default <host-root>/"
                            + DEVICE_CHECKPOINT
                            + "): gives the pod UID of each pod-resources holder, which per-pod "
                            + "usage on shared GPUs needs. Env: "
                            + "DCGM_EXPORTER_KUBELET_DEVICE_CHECKPOINT.")
    Path deviceCheckpoint;

    @Option(
            names = "--host-proc",
            defaultValue = "${env:DCGM_EXPORTER_HOST_PROC}",
            paramLabel = "DIR",
            description =
                    "The node's /proc (default <host-root>/proc, the one the simulated source also "
                            + "reads): NVML names GPU processes by host PID, and /proc/<pid>/cgroup "
                            + "says their pod. Needs the host's PID namespace (hostPID) or the "
                            + "host's /proc mounted here. Env: DCGM_EXPORTER_HOST_PROC.")
    Path hostProc;

    @Option(
            names = "--mig-strategy",
            defaultValue = "${env:MIG_STRATEGY:-none}",
            paramLabel = "none|single|mixed",
            description =
                    "How the device plugin advertises MIG devices (default ${DEFAULT-VALUE}), which "
                            + "decides the resources that attribute GPUs to pods: nvidia.com/gpu, "
                            + "plus nvidia.com/mig-<profile> with mixed. Env: MIG_STRATEGY.")
    String migStrategy;

    @Option(
            names = "--web-config-file",
            defaultValue = "${env:DCGM_EXPORTER_WEB_CONFIG_FILE}",
            paramLabel = "FILE",
            description =
                    "exporter-toolkit web config: tls_server_config (cert_file, key_file) and "
                            + "basic_auth_users (bcrypt). Re-read when it changes. Env: DCGM_EXPORTER_WEB_CONFIG_FILE.")
    Path webConfigFile;

    @Option(
            names = "--hostname-label",
            defaultValue = "${env:DCGM_EXPORTER_HOSTNAME_LABEL:-Hostname}",
            paramLabel = "NAME",
            description =
                    "Spelling of the host label: Hostname (default, upstream up to "
                            + "4.5.3-4.8.2 and most dashboards) or hostname (newer upstream). Env: DCGM_EXPORTER_HOSTNAME_LABEL.")
    String hostnameLabel;

    @Option(
            names = {"-n", "--no-hostname"},
            description = "Leave the host label out.")
    boolean noHostname;

    @Mixin GpuSourceOptions gpuSource;

    @Spec CommandSpec spec;

    private final EventLog log = new EventLog("dcgm-exporter");

    @Override
    public Integer call() throws Exception {
        Exporter running = start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    running.close();
                                    log.info("stopped");
                                    stopped.countDown();
                                },
                                "shutdown"));
        stopped.await();
        return 0;
    }

    Exporter start() throws Exception {
        Exporter.Settings settings = settings();
        GpuInventory inventory = gpuSource.open();
        try {
            return Exporter.start(settings, inventory, log);
        } catch (Exception e) {
            inventory.close();
            throw e;
        }
    }

    /**
     * Validates the command line (a bad value is a usage error, exit 2) and reads the counters file
     * (a bad file fails the command, exit 1), before any GPU is opened.
     */
    Exporter.Settings settings() {
        if (!hostnameLabel.equals(LabelNames.HOSTNAME_LEGACY)
                && !hostnameLabel.equals(LabelNames.HOSTNAME)) {
            throw usage(
                    "--hostname-label must be Hostname or hostname, got '" + hostnameLabel + "'");
        }
        if (collectIntervalMs < 100) {
            throw usage("--collect-interval must be at least 100 ms, got " + collectIntervalMs);
        }
        if (podResourcesCacheMs < 0) {
            throw usage("--pod-resources-cache must not be negative, got " + podResourcesCacheMs);
        }
        MigStrategy strategy;
        try {
            strategy = ConfigField.MIG_STRATEGY.parse(migStrategy, "--mig-strategy");
        } catch (ConfigException e) {
            throw usage(e.getMessage());
        }
        CountersFile.Parsed counters =
                collectors == null ? CountersFile.readDefault() : CountersFile.read(collectors);
        return new Exporter.Settings(
                address,
                counters,
                Duration.ofMillis(collectIntervalMs),
                podResourcesSocket,
                Duration.ofMillis(podResourcesCacheMs),
                webConfigFile,
                noHostname ? null : hostnameLabel,
                gpuSource.nodeName(),
                strategy,
                hostProc != null ? hostProc : gpuSource.hostRoot().resolve("proc"),
                deviceCheckpoint != null
                        ? deviceCheckpoint
                        : gpuSource.hostRoot().resolve(DEVICE_CHECKPOINT));
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    public static void main(String[] args) {
        AgentCommand.exit(new DcgmExporterMain(), args);
    }
}
