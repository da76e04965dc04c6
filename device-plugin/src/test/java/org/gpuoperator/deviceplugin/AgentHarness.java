package org.gpuoperator.deviceplugin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.health.HealthPolicy;
import org.gpuoperator.kubelet.emulator.KubeletEmulator;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;

/**
 * A simulated node in a temp dir: host root, validations dir (toolkit ready), device plugin dir,
 * kubelet, agent.
 */
final class AgentHarness implements AutoCloseable {

    static final String NODE = "node-a";

    final Path root;
    final Path hostRoot;
    final Path pluginDir;
    final Path validations;
    final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    final EventLog log =
            new EventLog("device-plugin", new PrintStream(logBytes, true, StandardCharsets.UTF_8));
    KubeletEmulator kubelet;
    DevicePluginAgent agent;

    AgentHarness(Path root) throws IOException {
        this.root = root;
        this.hostRoot = Files.createDirectories(root.resolve("host"));
        // unix socket paths are limited to 107 bytes: keep the plugin dir short
        this.pluginDir = Files.createTempDirectory("dp");
        this.validations = Files.createDirectories(root.resolve("validations"));
        new ReadinessFiles(validations)
                .markReady(ReadinessFiles.TOOLKIT, Map.of("runtime", "containerd"));
    }

    AgentHarness withKubelet() {
        kubelet = KubeletEmulator.start(pluginDir);
        return this;
    }

    DevicePluginAgent start(String profile, Path config, Map<Flag, String> cli) throws Exception {
        return start(profile, config, cli, Map.of());
    }

    DevicePluginAgent start(
            String profile, Path config, Map<Flag, String> cli, Map<String, String> env)
            throws Exception {
        var settings =
                new DevicePluginAgent.Settings(
                        pluginDir, config, cli, env, HealthPolicy.defaults());
        this.profile = profile;
        this.settings = settings;
        agent = agent(log);
        agent.start();
        return agent;
    }

    private String profile;
    private DevicePluginAgent.Settings settings;

    /** Another agent like the started one, on the same node and directories (not started). */
    DevicePluginAgent agent(EventLog log) {
        return new DevicePluginAgent(
                settings,
                GpuSourceOptions.of("simulated:" + profile, hostRoot, NODE),
                AgentOptions.of(validations, "127.0.0.1:0"),
                log);
    }

    SimulatedFaults faults() {
        return new SimulatedFaults(hostRoot);
    }

    boolean pluginReady() {
        return Files.exists(validations.resolve(ReadinessFiles.PLUGIN));
    }

    String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        if (agent != null) {
            agent.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        try (var files = Files.list(pluginDir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(pluginDir);
    }
}
