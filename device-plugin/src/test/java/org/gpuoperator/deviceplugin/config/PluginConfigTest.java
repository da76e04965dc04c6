package org.gpuoperator.deviceplugin.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginConfigTest {

    static final String UPSTREAM_STYLE = """
            version: v1
            flags:
              migStrategy: mixed
              failOnInitError: false
              nvidiaDriverRoot: /run/nvidia/driver
              useNodeFeatureAPI: true
              plugin:
                passDeviceSpecs: true
                deviceListStrategy: [envvar, cdi-cri]
                deviceIDStrategy: index
              gfd:
                oneshot: false
            sharing:
              timeSlicing:
                renameByDefault: true
                resources:
                - name: gpu
                  replicas: 10
                - name: nvidia.com/mig-1g.5gb
                  replicas: 2
            """;

    @Test
    void readsAnUpstreamConfigAndReportsTheFieldsItDoesNotActOn() {
        ConfigFile f = ConfigFile.parse(UPSTREAM_STYLE, "cfg.yaml");
        PluginConfig c = PluginConfig.resolve(Map.of(), Map.of(), f);
        assertThat(c.migStrategy()).isEqualTo(MigStrategy.MIXED);
        assertThat(c.failOnInitError()).isFalse();
        assertThat(c.driverRoot()).isEqualTo("/run/nvidia/driver");
        assertThat(c.devRoot()).as("dev root defaults to the driver root").isEqualTo("/run/nvidia/driver");
        assertThat(c.passDeviceSpecs()).isTrue();
        assertThat(c.deviceListStrategies()).containsExactly(DeviceListStrategy.ENVVAR, DeviceListStrategy.CDI_CRI);
        assertThat(c.deviceIdStrategy()).isEqualTo(DeviceIdStrategy.INDEX);
        assertThat(c.timeSlicing().renameByDefault()).isTrue();
        assertThat(c.timeSlicing().resources()).extracting(TimeSlicing.SharedResource::name)
                .containsExactly("nvidia.com/gpu", "nvidia.com/mig-1g.5gb");
        assertThat(c.timeSlicing().advertisedName(c.timeSlicing().resources().get(0))).isEqualTo("nvidia.com/gpu.shared");
        assertThat(f.ignored()).containsExactly("flags.useNodeFeatureAPI", "flags.gfd");
    }

    @Test
    void defaultsAreUpstreams() {
        PluginConfig c = PluginConfig.defaults();
        assertThat(c.migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(c.failOnInitError()).isTrue();
        assertThat(c.deviceListStrategies()).containsExactly(DeviceListStrategy.ENVVAR);
        assertThat(c.deviceIdStrategy()).isEqualTo(DeviceIdStrategy.UUID);
        assertThat(c.cdiAnnotationPrefix()).isEqualTo("cdi.k8s.io/");
        assertThat(c.devRoot()).isEqualTo("/");
        assertThat(c.timeSlicing().resources()).isEmpty();
    }

    @Test
    void commandLineWinsOverEnvironmentWhichWinsOverTheFile() {
        ConfigFile f = ConfigFile.parse("flags: {migStrategy: mixed, plugin: {deviceIDStrategy: index, "
                + "passDeviceSpecs: true}}", "cfg.yaml");
        Map<String, String> env = Map.of("MIG_STRATEGY", "single", "DEVICE_ID_STRATEGY", "uuid");
        PluginConfig fromEnv = PluginConfig.resolve(Map.of(), env, f);
        assertThat(fromEnv.migStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(fromEnv.deviceIdStrategy()).isEqualTo(DeviceIdStrategy.UUID);
        assertThat(fromEnv.passDeviceSpecs()).as("only in the file").isTrue();

        PluginConfig fromCli = PluginConfig.resolve(Map.of(Flag.MIG_STRATEGY, "none",
                Flag.DEVICE_LIST_STRATEGY, "volume-mounts,cdi-annotations"), env, f);
        assertThat(fromCli.migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(fromCli.deviceListStrategies())
                .containsExactly(DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.CDI_ANNOTATIONS);
    }

    @Test
    void errorsNameTheFileAndField() {
        assertThatThrownBy(() -> ConfigFile.parse("version: v2\n", "cfg.yaml"))
                .isInstanceOf(ConfigException.class).hasMessage("cfg.yaml: version: unknown version 'v2' (expected v1)");
        assertThatThrownBy(() -> ConfigFile.parse("flags: {renameByDefault: true}", "cfg.yaml"))
                .hasMessage("cfg.yaml: flags.renameByDefault: unknown field (it belongs under sharing.timeSlicing)");
        assertThatThrownBy(() -> ConfigFile.parse("flags: {plugin: {deviceListStrategies: envvar}}", "cfg.yaml"))
                .hasMessage("cfg.yaml: flags.plugin.deviceListStrategies: unknown field");
        assertThatThrownBy(() -> ConfigFile.parse(
                "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}", "cfg.yaml"))
                .hasMessageStartingWith("cfg.yaml: sharing.timeSlicing.resources[0].replicas: must be at least 2, got 1");
        assertThatThrownBy(() -> ConfigFile.parse(
                "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}, {name: nvidia.com/gpu, replicas: 3}]}}",
                "cfg.yaml"))
                .hasMessageContaining("sharing.timeSlicing.resources[1].name: resource nvidia.com/gpu is listed twice");
        assertThatThrownBy(() -> ConfigFile.parse("sharing: {timeSlicing: {resources: [{name: GPU!, replicas: 2}]}}",
                "cfg.yaml")).hasMessageContaining("sharing.timeSlicing.resources[0].name: 'nvidia.com/GPU!'");
        assertThatThrownBy(() -> ConfigFile.parse("sharing: {timeSlicing: {}}", "cfg.yaml"))
                .hasMessage("cfg.yaml: sharing.timeSlicing.resources: required, a non-empty list");
        assertThatThrownBy(() -> ConfigFile.parse("sharing: {mps: {resources: [{name: gpu, replicas: 2}]}}",
                "cfg.yaml")).hasMessageContaining("sharing.mps: MPS sharing is not supported");
        assertThatThrownBy(() -> ConfigFile.parse("flags: [1, 2]", "cfg.yaml"))
                .hasMessage("cfg.yaml: flags: expected a map, got [1, 2] (arraylist)");
        assertThatThrownBy(() -> ConfigFile.parse("flags: {migStrategy: [a", "cfg.yaml"))
                .hasMessageStartingWith("cfg.yaml: not valid YAML or JSON");
    }

    @Test
    void badValuesNameWhereTheyCameFrom() {
        ConfigFile f = ConfigFile.parse("flags: {migStrategy: half}", "cfg.yaml");
        assertThatThrownBy(() -> PluginConfig.resolve(Map.of(), Map.of(), f))
                .hasMessage("cfg.yaml: flags.migStrategy: expected one of none, single, mixed, got 'half'");
        assertThatThrownBy(() -> PluginConfig.resolve(Map.of(), Map.of("DEVICE_LIST_STRATEGY", "envvar,magic"),
                ConfigFile.empty()))
                .hasMessageStartingWith("environment variable DEVICE_LIST_STRATEGY: unknown device list strategy 'magic'");
        assertThatThrownBy(() -> PluginConfig.resolve(Map.of(Flag.PASS_DEVICE_SPECS, "maybe"), Map.of(),
                ConfigFile.empty())).hasMessage("--pass-device-specs: expected true or false, got 'maybe'");
        assertThatThrownBy(() -> PluginConfig.resolve(Map.of(Flag.DRIVER_ROOT, "relative"), Map.of(),
                ConfigFile.empty())).hasMessage("--driver-root: must be an absolute path, got 'relative'");
    }

    @Test
    void jsonIsAcceptedToo() {
        ConfigFile f = ConfigFile.parse("""
                {"version": "v1", "flags": {"plugin": {"deviceListStrategy": "volume-mounts"}},
                 "sharing": {"timeSlicing": {"failRequestsGreaterThanOne": true,
                   "resources": [{"name": "nvidia.com/gpu", "replicas": 4, "rename": "gpu-quarter"}]}}}
                """, "cfg.json");
        PluginConfig c = PluginConfig.resolve(Map.of(), Map.of(), f);
        assertThat(c.deviceListStrategies()).isEqualTo(List.of(DeviceListStrategy.VOLUME_MOUNTS));
        assertThat(c.timeSlicing().failRequestsGreaterThanOne()).isTrue();
        assertThat(c.timeSlicing().advertisedName(c.timeSlicing().resources().get(0)))
                .isEqualTo("nvidia.com/gpu-quarter");
    }
}
