package org.gpuoperator.deviceplugin.mps;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.deviceconfig.ConfigSelection;
import org.gpuoperator.node.deviceconfig.NodeConfigWatch;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.labels.AgentKubeClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code device-plugin mps-control-daemon}: the MPS control daemon agent, from the device plugin's
 * image as upstream's. It reads the same device-plugin config as the plugin (the node's {@code
 * nvidia.com/device-plugin.config} label picks it) and runs one control daemon per resource shared
 * through {@code sharing.mps}.
 */
@Command(
        name = "mps-control-daemon",
        sortOptions = false,
        description = {
            "Runs CUDA's MPS control daemon for each resource the device-plugin config shares through "
                    + "sharing.mps, under --mps-root, with upstream's per-client limits."
        })
public final class MpsControlDaemonMain implements Callable<Integer> {

    @Option(
            names = "--mps-root",
            defaultValue = "${env:MPS_ROOT:-" + MpsPaths.DEFAULT_ROOT + "}",
            paramLabel = "DIR",
            description =
                    "Host directory of the daemons' pipes, logs and shm (default ${DEFAULT-VALUE}). "
                            + "Env: MPS_ROOT.")
    Path mpsRoot;

    @Option(
            names = {"--config", "--config-file"},
            defaultValue = "${env:CONFIG_FILE}",
            paramLabel = "FILE",
            description = "The device-plugin config file (v1). Env: CONFIG_FILE.")
    Path configFile;

    @Option(
            names = "--config-file-srcdir",
            defaultValue = "${env:CONFIG_FILE_SRCDIR}",
            paramLabel = "DIR",
            description =
                    "Named device-plugin configs; the node label "
                            + ConfigSelection.LABEL
                            + " picks one. Env: CONFIG_FILE_SRCDIR.")
    Path configDir;

    @Option(
            names = "--default-config",
            defaultValue = "${env:DEFAULT_CONFIG}",
            paramLabel = "NAME",
            description = "The named config for a node without the label. Env: DEFAULT_CONFIG.")
    String defaultConfig;

    @Mixin GpuSourceOptions gpuSource;

    @Mixin AgentOptions agentOptions;

    private final Map<String, String> env;
    private final EventLog log;

    public MpsControlDaemonMain() {
        this(System.getenv(), new EventLog("mps-control-daemon"));
    }

    MpsControlDaemonMain(Map<String, String> env, EventLog log) {
        this.env = env;
        this.log = log;
    }

    @Override
    public Integer call() throws Exception {
        gpuSource.source(); // a malformed --gpu-source fails here
        MpsControl control = MpsControl.forSource(gpuSource.source().simulated());
        KubernetesClient client = null;
        NodeConfigWatch watch = null;
        Path start = configFile;
        if (configDir != null) {
            client = AgentKubeClient.build();
            watch =
                    new NodeConfigWatch(
                            client,
                            gpuSource.nodeName(),
                            new ConfigSelection(configDir, defaultConfig),
                            false, // the device plugin reports the config in force
                            log);
            try {
                ConfigSelection.Choice choice =
                        watch.initial(
                                c -> MpsDaemonAgent.wanted(file(c), env, java.util.List.of()));
                start = file(choice);
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
        }
        MpsDaemonAgent agent =
                new MpsDaemonAgent(mpsRoot, env, start, gpuSource, agentOptions, control, log);
        Thread hook = Thread.ofPlatform().name("shutdown").unstarted(agent::close);
        Runtime.getRuntime().addShutdownHook(hook);
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

    private Path file(ConfigSelection.Choice choice) {
        return choice.none() ? configFile : choice.file();
    }
}
