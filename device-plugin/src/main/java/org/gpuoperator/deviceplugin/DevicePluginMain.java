package org.gpuoperator.deviceplugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.health.HealthPolicy;
import org.gpuoperator.deviceplugin.mps.MpsControlDaemonMain;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.ReloadSignal;
import org.gpuoperator.node.deviceconfig.ConfigSelection;
import org.gpuoperator.node.deviceconfig.NodeConfigWatch;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.labels.AgentKubeClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Entry point of {@code device-plugin}: the kubelet device plugin daemon for {@code nvidia.com/gpu}
 * (and MIG and shared resources). Flags keep upstream's names; each also reads upstream's
 * environment variable, and both win over the config file.
 */
@Command(
        name = "device-plugin",
        sortOptions = false,
        description = {
            "Kubelet device plugin (v1beta1) for nvidia.com/gpu: advertises the node's GPUs, keeps their "
                    + "health current and tells the runtime which GPUs a container gets.",
            "Precedence: command line, then environment, then --config file."
        })
public final class DevicePluginMain implements Callable<Integer>, AgentCommand.Subcommands {

    @Override
    public List<Class<?>> subcommands() {
        return List.of(MpsControlDaemonMain.class);
    }

    public static final String DEFAULT_PLUGIN_DIR = "/var/lib/kubelet/device-plugins";

    @Option(
            names = "--device-plugin-path",
            defaultValue = DEFAULT_PLUGIN_DIR,
            paramLabel = "DIR",
            description =
                    "The kubelet's device plugin directory, holding kubelet.sock (default ${DEFAULT-VALUE}).")
    Path pluginDir;

    @Option(
            names = {"--config", "--config-file"},
            defaultValue = "${env:CONFIG_FILE}",
            paramLabel = "FILE",
            description =
                    "Config file, version v1 (YAML or JSON) as upstream's. SIGHUP reloads it. Env: CONFIG_FILE.")
    Path configFile;

    @Option(
            names = "--config-file-srcdir",
            defaultValue = "${env:CONFIG_FILE_SRCDIR}",
            paramLabel = "DIR",
            description =
                    "Named configs (a mounted ConfigMap, one file per key): the node label "
                            + ConfigSelection.LABEL
                            + " picks one, and a change of the label applies it without a restart. "
                            + "Env: CONFIG_FILE_SRCDIR.")
    Path configDir;

    @Option(
            names = "--default-config",
            defaultValue = "${env:DEFAULT_CONFIG}",
            paramLabel = "NAME",
            description =
                    "The named config for a node without the label (default: none). Env: DEFAULT_CONFIG.")
    String defaultConfig;

    @Option(
            names = "--mig-strategy",
            paramLabel = "none|single|mixed",
            description = "How MIG devices are advertised (default none). Env: MIG_STRATEGY.")
    String migStrategy;

    @Option(
            names = "--fail-on-init-error",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description =
                    "Exit when the GPUs cannot be read (default true). Env: FAIL_ON_INIT_ERROR.")
    String failOnInitError;

    @Option(
            names = {"--driver-root", "--nvidia-driver-root"},
            paramLabel = "DIR",
            description = "Host path of the driver root (default /). Env: NVIDIA_DRIVER_ROOT.")
    String driverRoot;

    @Option(
            names = {"--dev-root", "--nvidia-dev-root"},
            paramLabel = "DIR",
            description =
                    "Host path that holds /dev of the driver (default: the driver root). Env: NVIDIA_DEV_ROOT.")
    String devRoot;

    @Option(
            names = "--pass-device-specs",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description =
                    "Also return the /dev/nvidia* device nodes from Allocate (default false). "
                            + "Env: PASS_DEVICE_SPECS.")
    String passDeviceSpecs;

    @Option(
            names = "--device-list-strategy",
            paramLabel = "LIST",
            description =
                    "envvar, volume-mounts, cdi-annotations, cdi-cri; comma separated (default envvar). "
                            + "Env: DEVICE_LIST_STRATEGY.")
    String deviceListStrategy;

    @Option(
            names = "--device-id-strategy",
            paramLabel = "uuid|index",
            description =
                    "Name devices to the runtime by uuid or index (default uuid). Env: DEVICE_ID_STRATEGY.")
    String deviceIdStrategy;

    @Option(
            names = "--cdi-annotation-prefix",
            paramLabel = "PREFIX",
            description =
                    "Prefix of the CDI annotation keys (default cdi.k8s.io/). Env: CDI_ANNOTATION_PREFIX.")
    String cdiAnnotationPrefix;

    @Option(
            names = "--shared-devices-allocation-policy",
            paramLabel = "distributed|packed",
            description =
                    "Preferred allocation of shared and MIG devices (default distributed). "
                            + "Env: SHARED_DEVICES_ALLOCATION_POLICY.")
    String allocationPolicy;

    @Option(
            names = "--mps-root",
            paramLabel = "DIR",
            description =
                    "Host directory of the MPS control daemon's pipes, logs and shm, for sharing.mps "
                            + "(default /run/nvidia/mps). Env: MPS_ROOT.")
    String mpsRoot;

    @Option(
            names = "--gdrcopy-enabled",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description = "Set NVIDIA_GDRCOPY=enabled in containers. Env: GDRCOPY_ENABLED.")
    String gdrcopy;

    @Option(
            names = "--gds-enabled",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description = "Set NVIDIA_GDS=enabled in containers. Env: GDS_ENABLED.")
    String gds;

    @Option(
            names = "--mofed-enabled",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description = "Set NVIDIA_MOFED=enabled in containers. Env: MOFED_ENABLED.")
    String mofed;

    @Option(
            names = "--disable-healthchecks",
            defaultValue = "${env:DP_DISABLE_HEALTHCHECKS}",
            paramLabel = "LIST",
            description =
                    "all, or XIDs to ignore besides 13,31,43,45,68,109. Env: DP_DISABLE_HEALTHCHECKS.")
    String disableHealthchecks;

    @Option(
            names = "--enable-healthchecks",
            defaultValue = "${env:DP_ENABLE_HEALTHCHECKS}",
            paramLabel = "LIST",
            description =
                    "XIDs that make a device unhealthy even though ignored by default. "
                            + "Env: DP_ENABLE_HEALTHCHECKS.")
    String enableHealthchecks;

    @Mixin GpuSourceOptions gpuSource;

    @Mixin AgentOptions agentOptions;

    private final Map<String, String> env;
    private final EventLog log;

    public DevicePluginMain() {
        this(System.getenv(), new EventLog("device-plugin"));
    }

    /** For tests: a given environment and log. */
    DevicePluginMain(Map<String, String> env, EventLog log) {
        this.env = env;
        this.log = log;
    }

    /**
     * Flags given on the command line only (the environment is applied by {@link Flag} precedence).
     */
    Map<Flag, String> cliFlags() {
        Map<Flag, String> m = new EnumMap<>(Flag.class);
        put(m, Flag.MIG_STRATEGY, migStrategy);
        put(m, Flag.FAIL_ON_INIT_ERROR, failOnInitError);
        put(m, Flag.DRIVER_ROOT, driverRoot);
        put(m, Flag.DEV_ROOT, devRoot);
        put(m, Flag.PASS_DEVICE_SPECS, passDeviceSpecs);
        put(m, Flag.DEVICE_LIST_STRATEGY, deviceListStrategy);
        put(m, Flag.DEVICE_ID_STRATEGY, deviceIdStrategy);
        put(m, Flag.CDI_ANNOTATION_PREFIX, cdiAnnotationPrefix);
        put(m, Flag.SHARED_DEVICES_ALLOCATION_POLICY, allocationPolicy);
        put(m, Flag.GDRCOPY_ENABLED, gdrcopy);
        put(m, Flag.GDS_ENABLED, gds);
        put(m, Flag.MOFED_ENABLED, mofed);
        put(m, Flag.MPS_ROOT, mpsRoot);
        return m;
    }

    private static void put(Map<Flag, String> m, Flag f, String v) {
        if (v != null) {
            m.put(f, v);
        }
    }

    /**
     * Validates everything that can be checked without the kubelet; throws with a one-line message.
     */
    DevicePluginAgent.Settings settings() {
        gpuSource.source(); // a malformed --gpu-source fails here, before any waiting
        DevicePluginAgent.Settings s =
                new DevicePluginAgent.Settings(
                        pluginDir.toAbsolutePath(),
                        configFile,
                        cliFlags(),
                        env,
                        HealthPolicy.parse(disableHealthchecks, enableHealthchecks));
        DevicePluginAgent.loadConfig(s);
        return s;
    }

    @Override
    public Integer call() throws Exception {
        DevicePluginAgent.Settings settings = settings();
        KubernetesClient client = null;
        NodeConfigWatch watch = null;
        if (configDir != null) {
            // the node's label picks the config; a refused one at start is reported and fatal
            client = AgentKubeClient.build();
            watch =
                    new NodeConfigWatch(
                            client,
                            gpuSource.nodeName(),
                            new ConfigSelection(configDir, defaultConfig),
                            true,
                            log);
            DevicePluginAgent.Settings local = settings;
            ConfigSelection.Choice choice;
            try {
                choice =
                        watch.initial(
                                c -> DevicePluginAgent.loadConfig(local.withConfigFile(file(c))));
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
            settings = settings.withConfigFile(file(choice));
        }
        DevicePluginAgent agent = new DevicePluginAgent(settings, gpuSource, agentOptions, log);
        Thread hook = Thread.ofPlatform().name("shutdown").unstarted(agent::close);
        Runtime.getRuntime().addShutdownHook(hook);
        ReloadSignal.install(log, agent::reload); // SIGHUP re-reads the config
        try {
            agent.start();
            if (watch != null) {
                watch.start(choice -> agent.useConfig(file(choice)));
            }
        } catch (Exception | Error e) {
            agent.close();
            if (watch != null) {
                watch.close();
                client.close();
            }
            Runtime.getRuntime().removeShutdownHook(hook);
            throw e;
        }
        agent.awaitStop();
        if (watch != null) {
            watch.close();
            client.close();
        }
        return 0;
    }

    /** The chosen config's file; none: the {@code --config} file, if any. */
    private Path file(ConfigSelection.Choice choice) {
        return choice.none() ? configFile : choice.file();
    }

    public static void main(String[] args) {
        // on the other core while picocli and the config are read
        StartWarmUp.start();
        // its health server starts after the GPUs are read: the class path's scan is done by then
        HealthServer.lookUpProviderEarly();
        AgentCommand.exit(new DevicePluginMain(), args);
    }
}
