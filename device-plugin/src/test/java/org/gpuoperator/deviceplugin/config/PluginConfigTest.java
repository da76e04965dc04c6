package org.gpuoperator.deviceplugin.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.gpuoperator.node.deviceconfig.ConfigException;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.DeviceIdStrategy;
import org.gpuoperator.node.deviceconfig.DeviceListStrategy;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SharingConfig;
import org.junit.jupiter.api.Test;

class PluginConfigTest {

    static final String UPSTREAM_STYLE =
            """
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
    void resolvesAnUpstreamConfig() {
        ConfigFile f = ConfigFile.parse(UPSTREAM_STYLE, "cfg.yaml");
        PluginConfig c = PluginConfig.resolve(Map.of(), Map.of(), f);
        assertThat(c.migStrategy()).isEqualTo(MigStrategy.MIXED);
        assertThat(c.failOnInitError()).isFalse();
        assertThat(c.driverRoot()).isEqualTo("/run/nvidia/driver");
        assertThat(c.devRoot())
                .as("dev root defaults to the driver root")
                .isEqualTo("/run/nvidia/driver");
        assertThat(c.passDeviceSpecs()).isTrue();
        assertThat(c.deviceListStrategies())
                .containsExactly(DeviceListStrategy.ENVVAR, DeviceListStrategy.CDI_CRI);
        assertThat(c.deviceIdStrategy()).isEqualTo(DeviceIdStrategy.INDEX);
        assertThat(c.sharing().renameByDefault()).isTrue();
        assertThat(c.sharing().resources())
                .extracting(SharingConfig.SharedResource::name)
                .containsExactly("nvidia.com/gpu", "nvidia.com/mig-1g.5gb");
        assertThat(c.sharing().advertisedName(c.sharing().resources().get(0)))
                .isEqualTo("nvidia.com/gpu.shared");
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
        assertThat(c.sharing().resources()).isEmpty();
    }

    @Test
    void commandLineWinsOverEnvironmentWhichWinsOverTheFile() {
        ConfigFile f =
                ConfigFile.parse(
                        "flags: {migStrategy: mixed, plugin: {deviceIDStrategy: index, "
                                + "passDeviceSpecs: true}}",
                        "cfg.yaml");
        Map<String, String> env = Map.of("MIG_STRATEGY", "single", "DEVICE_ID_STRATEGY", "uuid");
        PluginConfig fromEnv = PluginConfig.resolve(Map.of(), env, f);
        assertThat(fromEnv.migStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(fromEnv.deviceIdStrategy()).isEqualTo(DeviceIdStrategy.UUID);
        assertThat(fromEnv.passDeviceSpecs()).as("only in the file").isTrue();

        PluginConfig fromCli =
                PluginConfig.resolve(
                        Map.of(
                                Flag.MIG_STRATEGY,
                                "none",
                                Flag.DEVICE_LIST_STRATEGY,
                                "volume-mounts,cdi-annotations"),
                        env,
                        f);
        assertThat(fromCli.migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(fromCli.deviceListStrategies())
                .containsExactly(
                        DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.CDI_ANNOTATIONS);
    }

    @Test
    void badValuesNameWhereTheyCameFrom() {
        assertThatThrownBy(
                        () ->
                                PluginConfig.resolve(
                                        Map.of(Flag.MIG_STRATEGY, "half"),
                                        Map.of(),
                                        ConfigFile.empty()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("--mig-strategy: expected one of none, single, mixed, got 'half'");
        assertThatThrownBy(
                        () ->
                                PluginConfig.resolve(
                                        Map.of(),
                                        Map.of("DEVICE_LIST_STRATEGY", "envvar,magic"),
                                        ConfigFile.empty()))
                .hasMessageStartingWith(
                        "environment variable DEVICE_LIST_STRATEGY: unknown device list strategy 'magic'");
        assertThatThrownBy(
                        () ->
                                PluginConfig.resolve(
                                        Map.of(Flag.PASS_DEVICE_SPECS, "maybe"),
                                        Map.of(),
                                        ConfigFile.empty()))
                .hasMessage("--pass-device-specs: expected true or false, got 'maybe'");
        assertThatThrownBy(
                        () ->
                                PluginConfig.resolve(
                                        Map.of(Flag.DRIVER_ROOT, "relative"),
                                        Map.of(),
                                        ConfigFile.empty()))
                .hasMessage("--driver-root: must be an absolute path, got 'relative'");
        assertThatThrownBy(
                        () ->
                                PluginConfig.resolve(
                                        Map.of(),
                                        Map.of("CDI_ANNOTATION_PREFIX", "cdi"),
                                        ConfigFile.empty()))
                .hasMessageStartingWith(
                        "environment variable CDI_ANNOTATION_PREFIX: CDI annotation "
                                + "prefix 'cdi' must end with '/'");
    }
}
