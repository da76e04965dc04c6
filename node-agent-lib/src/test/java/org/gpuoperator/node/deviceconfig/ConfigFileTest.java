package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

    private static ConfigFile parse(String text) {
        return ConfigFile.parse(text, "cfg.yaml");
    }

    @Test
    void readsEveryFieldOfAnUpstreamConfigAndListsTheOnesWithNoEffect() {
        ConfigFile f =
                parse(
                        """
                version: v1
                flags:
                  migStrategy: mixed
                  failOnInitError: false
                  nvidiaDriverRoot: /run/nvidia/driver
                  useNodeFeatureAPI: true
                  mpsRoot: /run/nvidia/mps
                  plugin:
                    passDeviceSpecs: true
                    deviceListStrategy: [envvar, cdi-cri]
                    deviceIDStrategy: index
                    nvidiaCTKPath: /usr/bin/nvidia-ctk
                  gfd:
                    oneshot: false
                    noTimestamp: true
                    sleepInterval: 30s
                    outputFile: /etc/kubernetes/node-feature-discovery/features.d/gfd
                    machineTypeFile: /sys/class/dmi/id/product_name
                resources:
                  gpus: [{pattern: '*', name: gpu}]
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    resources:
                    - name: gpu
                      replicas: 10
                      devices: [0, 1]
                    - name: nvidia.com/mig-1g.5gb
                      replicas: 2
                      devices: all
                """);

        assertThat(f.get(ConfigField.MIG_STRATEGY)).contains(MigStrategy.MIXED);
        assertThat(f.get(ConfigField.FAIL_ON_INIT_ERROR)).contains(false);
        assertThat(f.get(ConfigField.NVIDIA_DRIVER_ROOT)).contains("/run/nvidia/driver");
        assertThat(f.get(ConfigField.NVIDIA_DEV_ROOT)).isEmpty();
        assertThat(f.get(ConfigField.USE_NODE_FEATURE_API)).contains(true);
        assertThat(f.get(ConfigField.PASS_DEVICE_SPECS)).contains(true);
        assertThat(f.get(ConfigField.DEVICE_LIST_STRATEGY))
                .contains(List.of(DeviceListStrategy.ENVVAR, DeviceListStrategy.CDI_CRI));
        assertThat(f.get(ConfigField.DEVICE_ID_STRATEGY)).contains(DeviceIdStrategy.INDEX);
        assertThat(f.get(ConfigField.GFD_ONESHOT)).contains(false);
        assertThat(f.get(ConfigField.GFD_NO_TIMESTAMP)).contains(true);
        assertThat(f.get(ConfigField.GFD_SLEEP_INTERVAL))
                .contains(new SleepInterval(Optional.of(Duration.ofSeconds(30))));
        assertThat(f.get(ConfigField.GFD_OUTPUT_FILE))
                .contains("/etc/kubernetes/node-feature-discovery/features.d/gfd");
        assertThat(f.sharing().renameByDefault()).isTrue();
        assertThat(f.sharing().resources())
                .containsExactly(
                        new SharingConfig.SharedResource("nvidia.com/gpu", 10, null),
                        new SharingConfig.SharedResource("nvidia.com/mig-1g.5gb", 2, null));
        assertThat(f.sharing().advertisedName(f.sharing().resources().get(0)))
                .isEqualTo("nvidia.com/gpu.shared");
        assertThat(f.ignored())
                .containsExactlyInAnyOrder(
                        "flags.plugin.nvidiaCTKPath",
                        "resources",
                        "sharing.timeSlicing.resources[0].devices");
    }

    @Test
    void jsonIsAcceptedToo() {
        ConfigFile f =
                parse(
                        """
                {"version": "v1", "flags": {"plugin": {"deviceListStrategy": "volume-mounts,envvar"}},
                 "sharing": {"timeSlicing": {"failRequestsGreaterThanOne": true,
                   "resources": [{"name": "nvidia.com/gpu", "replicas": 4, "rename": "gpu-quarter"}]}}}
                """);
        assertThat(f.get(ConfigField.DEVICE_LIST_STRATEGY))
                .contains(List.of(DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.ENVVAR));
        assertThat(f.sharing().failRequestsGreaterThanOne()).isTrue();
        assertThat(f.sharing().advertisedName(f.sharing().resources().get(0)))
                .isEqualTo("nvidia.com/gpu-quarter");
    }

    @Test
    void emptyFilesAndFilesWithoutSharingShareNothing() {
        assertThat(parse("").values()).isEmpty();
        assertThat(parse("").source()).isEqualTo("cfg.yaml");
        assertThat(parse("version: v1\nflags: {migStrategy: single}\n").sharing())
                .isEqualTo(SharingConfig.NONE);
        assertThat(parse("sharing: {timeSlicing: null}\n").sharing()).isEqualTo(SharingConfig.NONE);
    }

    @Test
    void unknownFieldsAreErrorsThatSayWhatWasMeant() {
        // upstream issue #1433: renameByDefault put under flags is silently ignored there
        assertThatThrownBy(() -> parse("flags: {renameByDefault: true}"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "cfg.yaml: flags.renameByDefault: unknown field (it belongs under sharing.timeSlicing)");
        assertThatThrownBy(() -> parse("migStrategy: mixed"))
                .hasMessage("cfg.yaml: migStrategy: unknown field (it belongs under flags)");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeslicing: {resources: [{name: gpu, replicas: 4}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.timeslicing: unknown field (did you mean sharing.timeSlicing?)");
        assertThatThrownBy(() -> parse("flags: {plugin: {deviceListStrategies: envvar}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: flags.plugin.deviceListStrategies: unknown field (expected "
                                + "passDeviceSpecs, deviceListStrategy,");
        assertThatThrownBy(() -> parse("flags: {gfd: {sleep: 5s}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: flags.gfd.sleep: unknown field (expected oneshot,");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: gpu, replica: 2}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.timeSlicing.resources[0].replica: unknown field "
                                + "(expected name, replicas, rename, devices)");
        assertThatThrownBy(() -> parse("extra: 1"))
                .hasMessage(
                        "cfg.yaml: extra: unknown field (expected version, flags, resources, sharing, imex)");
    }

    @Test
    void valuesAreCheckedWhicheverAgentUsesThem() {
        assertThatThrownBy(() -> parse("version: v2\n"))
                .hasMessage("cfg.yaml: version: unknown version 'v2' (expected v1)");
        assertThatThrownBy(() -> parse("flags: {migStrategy: half}"))
                .hasMessage(
                        "cfg.yaml: flags.migStrategy: expected one of none, single, mixed, got 'half'");
        assertThatThrownBy(() -> parse("flags: {failOnInitError: 'yes'}"))
                .hasMessage("cfg.yaml: flags.failOnInitError: expected true or false, got 'yes'");
        assertThatThrownBy(() -> parse("flags: {nvidiaDriverRoot: run/nvidia}"))
                .hasMessage(
                        "cfg.yaml: flags.nvidiaDriverRoot: must be an absolute path, got 'run/nvidia'");
        assertThatThrownBy(() -> parse("flags: {plugin: {deviceListStrategy: [envvar, magic]}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: flags.plugin.deviceListStrategy: unknown device list strategy 'magic'");
        assertThatThrownBy(() -> parse("flags: {plugin: {cdiAnnotationPrefix: cdi.k8s.io}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: flags.plugin.cdiAnnotationPrefix: CDI annotation prefix");
        assertThatThrownBy(() -> parse("flags: {gfd: {sleepInterval: soon}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: flags.gfd.sleepInterval: 'soon' is not a duration");
        assertThatThrownBy(() -> parse("flags: {gfd: {oneshot: maybe}}"))
                .hasMessage("cfg.yaml: flags.gfd.oneshot: expected true or false, got 'maybe'");
        assertThatThrownBy(() -> parse("flags: [1, 2]"))
                .hasMessage("cfg.yaml: flags: expected a map, got [1, 2] (arraylist)");
    }

    @Test
    void timeSlicingIsCheckedAsTheDevicePluginAdvertisesIt() {
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: sharing.timeSlicing.resources[0].replicas: must be at least 2, got 1");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: gpu, replicas: four}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.timeSlicing.resources[0].replicas: required, an integer of at least 2, "
                                + "got 'four'");
        assertThatThrownBy(() -> parse("sharing: {timeSlicing: {resources: [{replicas: 3}]}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: sharing.timeSlicing.resources[0].name: required");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}, {name: nvidia.com/gpu, replicas: 3}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.timeSlicing.resources[1].name: resource nvidia.com/gpu is listed twice");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: GPU!, replicas: 2}]}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: sharing.timeSlicing.resources[0].name: 'nvidia.com/GPU!' is not");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {resources: [{name: example.com/gpu, replicas: 2}]}}"))
                .hasMessageStartingWith(
                        "cfg.yaml: sharing.timeSlicing.resources[0].name: 'example.com/gpu' is not");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {timeSlicing: {renameByDefault: true, resources: "
                                                + "[{name: gpu, replicas: 2}, {name: mig-1g.5gb, replicas: 2, rename: gpu.shared}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.timeSlicing.resources[1]: advertised name nvidia.com/gpu.shared is used twice");
        assertThatThrownBy(() -> parse("sharing: {timeSlicing: {}}"))
                .hasMessage("cfg.yaml: sharing.timeSlicing.resources: required, a non-empty list");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {mps: {resources: [{name: gpu, replicas: 2}]},"
                                                + " timeSlicing: {resources: [{name: gpu, replicas: 2}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing: timeSlicing and mps are mutually exclusive (set one of them)");
        assertThatThrownBy(
                        () ->
                                parse(
                                        "sharing: {mps: {resources: [{name: mig-1g.5gb, replicas: 2}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.mps.resources[0].name: MPS shares whole GPUs only"
                                + " (nvidia.com/gpu), got nvidia.com/mig-1g.5gb (share MIG devices with"
                                + " sharing.timeSlicing)");
        assertThatThrownBy(() -> parse("sharing: {mps: {resources: [{name: gpu, replicas: 1}]}}"))
                .hasMessage(
                        "cfg.yaml: sharing.mps.resources[0].replicas: must be at least 2, got 1"
                                + " (to stop sharing, remove the resource from sharing.mps)");
        assertThatThrownBy(() -> parse("sharing: {mps: {replicas: 2}}"))
                .hasMessage(
                        "cfg.yaml: sharing.mps.replicas: unknown field (expected renameByDefault,"
                                + " failRequestsGreaterThanOne, resources)");
        assertThatThrownBy(() -> parse("sharing: [1, 2]\n"))
                .hasMessage("cfg.yaml: sharing: expected a map, got [1, 2] (arraylist)");
    }

    @Test
    void mpsHasTheShapeOfTimeSlicingAndRefusesRequestsOfMoreThanOneByDefault() {
        ConfigFile f =
                parse(
                        """
                version: v1
                flags: {mpsRoot: /run/nvidia/mps}
                sharing:
                  mps:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """);
        assertThat(f.sharing().strategy()).isEqualTo(SharingConfig.Strategy.MPS);
        assertThat(f.sharing().mps()).isTrue();
        assertThat(f.sharing().failRequestsGreaterThanOne()).isTrue();
        assertThat(f.sharing().resources())
                .containsExactly(new SharingConfig.SharedResource("nvidia.com/gpu", 4, null));
        assertThat(f.get(ConfigField.MPS_ROOT)).contains("/run/nvidia/mps");
        assertThat(f.ignored()).isEmpty();

        ConfigFile relaxed =
                parse(
                        "sharing: {mps: {failRequestsGreaterThanOne: false,"
                                + " resources: [{name: gpu, replicas: 2}]}}");
        assertThat(relaxed.sharing().failRequestsGreaterThanOne()).isFalse();
        assertThat(parse(TS_ONLY).sharing().strategy())
                .isEqualTo(SharingConfig.Strategy.TIME_SLICING);
        assertThat(parse(TS_ONLY).sharing().failRequestsGreaterThanOne()).isFalse();
        assertThat(SharingConfig.NONE.strategy()).isEqualTo(SharingConfig.Strategy.NONE);
    }

    private static final String TS_ONLY =
            "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}]}}";

    @Test
    void yamlSyntaxErrorsGiveTheLine() {
        assertThatThrownBy(() -> parse("version: v1\nsharing:\n  timeSlicing: [\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("cfg.yaml: not valid YAML or JSON")
                .hasMessageContaining("line");
    }

    @Test
    void readNamesAMissingFile(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ConfigFile.read(dir.resolve("missing.yaml")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(dir.resolve("missing.yaml") + ": config file does not exist");
        Path f = Files.writeString(dir.resolve("c.yaml"), "flags: {migStrategy: none}\n");
        assertThat(ConfigFile.read(f).get(ConfigField.MIG_STRATEGY)).contains(MigStrategy.NONE);
        assertThat(ConfigFile.read(f).source()).isEqualTo(f.toString());
    }
}
