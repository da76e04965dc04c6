package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.gpuoperator.gfd.labels.Sharing;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SleepInterval;
import org.junit.jupiter.api.Test;

class SettingsTest {

    private static final ConfigFile FILE =
            ConfigFile.parse(
                    """
            flags:
              migStrategy: single
              useNodeFeatureAPI: false
              gfd: {oneshot: true, noTimestamp: true, sleepInterval: 5s, outputFile: /out/gfd, machineTypeFile: /dmi}
            sharing:
              timeSlicing:
                resources: [{name: gpu, replicas: 2}]
            """,
                    "cfg.yaml");

    @Test
    void defaultsWhenNothingIsGiven() {
        Settings s = Settings.resolve(Settings.Flags.NONE, Map.of(), ConfigFile.empty());

        assertThat(s.labels().migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(s.labels().sharing()).isEqualTo(Sharing.NONE);
        assertThat(s.oneshot()).isFalse();
        assertThat(s.noTimestamp()).isFalse();
        assertThat(s.sleepInterval()).isEqualTo(SleepInterval.DEFAULT);
        assertThat(s.sleepInterval().duration()).contains(Duration.ofSeconds(60));
        assertThat(s.outputFile()).isEmpty();
        assertThat(s.machineTypeFile()).isEqualTo("/sys/class/dmi/id/product_name");
        assertThat(s.nodeFeatureApi()).isEqualTo(Settings.NodeFeatureApi.AUTO);
    }

    @Test
    void theConfigFileFillsWhatFlagsAndEnvironmentLeaveOpen() {
        Settings s = Settings.resolve(Settings.Flags.NONE, Map.of(), FILE);

        assertThat(s.labels().migStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(s.labels().sharing().replicasOf("nvidia.com/gpu")).contains(2);
        assertThat(s.oneshot()).isTrue();
        assertThat(s.noTimestamp()).isTrue();
        assertThat(s.sleepInterval().duration()).contains(Duration.ofSeconds(5));
        assertThat(s.outputFile()).contains("/out/gfd");
        assertThat(s.machineTypeFile()).isEqualTo("/dmi");
        assertThat(s.nodeFeatureApi()).isEqualTo(Settings.NodeFeatureApi.FALSE);
    }

    @Test
    void environmentBeatsTheFileAndFlagsBeatTheEnvironment() {
        Map<String, String> env =
                Map.of(
                        "MIG_STRATEGY",
                        "mixed",
                        "GFD_ONESHOT",
                        "false",
                        "GFD_SLEEP_INTERVAL",
                        "2m",
                        "GFD_OUTPUT_FILE",
                        "/env/gfd",
                        "USE_NODE_FEATURE_API",
                        "true");
        Settings fromEnv = Settings.resolve(Settings.Flags.NONE, env, FILE);

        assertThat(fromEnv.labels().migStrategy()).isEqualTo(MigStrategy.MIXED);
        assertThat(fromEnv.oneshot()).isFalse();
        assertThat(fromEnv.sleepInterval().duration()).contains(Duration.ofMinutes(2));
        assertThat(fromEnv.outputFile()).contains("/env/gfd");
        assertThat(fromEnv.nodeFeatureApi()).isEqualTo(Settings.NodeFeatureApi.TRUE);

        Settings.Flags flags =
                new Settings.Flags("none", true, false, "infinite", "", "/flag/dmi", "auto", null);
        Settings fromFlags = Settings.resolve(flags, env, FILE);
        assertThat(fromFlags.labels().migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(fromFlags.oneshot()).isTrue();
        assertThat(fromFlags.noTimestamp()).isFalse();
        assertThat(fromFlags.sleepInterval().infinite()).isTrue();
        assertThat(fromFlags.outputFile()).contains("");
        assertThat(fromFlags.machineTypeFile()).isEqualTo("/flag/dmi");
        assertThat(fromFlags.nodeFeatureApi()).isEqualTo(Settings.NodeFeatureApi.AUTO);
        // Sharing only ever comes from the file, as in the device plugin.
        assertThat(fromFlags.labels().sharing())
                .isEqualTo(
                        new Sharing(
                                Sharing.Strategy.TIME_SLICING, false, Map.of("nvidia.com/gpu", 2)));
    }

    @Test
    void gfdPrefixedVariablesBeatTheSharedOnes() {
        Settings s =
                Settings.resolve(
                        Settings.Flags.NONE,
                        Map.of("GFD_MIG_STRATEGY", "single", "MIG_STRATEGY", "mixed"),
                        ConfigFile.empty());
        assertThat(s.labels().migStrategy()).isEqualTo(MigStrategy.SINGLE);
    }

    @Test
    void configFileFromFlagOrEnvironment() {
        assertThat(Settings.configFile(Settings.Flags.NONE, Map.of("CONFIG_FILE", "/a")))
                .contains(Path.of("/a"));
        assertThat(
                        Settings.configFile(
                                Settings.Flags.NONE,
                                Map.of("GFD_CONFIG_FILE", "/b", "CONFIG_FILE", "/a")))
                .contains(Path.of("/b"));
        Settings.Flags flags =
                new Settings.Flags(null, null, null, null, null, null, null, Path.of("/c"));
        assertThat(Settings.configFile(flags, Map.of("CONFIG_FILE", "/a"))).contains(Path.of("/c"));
        assertThat(Settings.configFile(Settings.Flags.NONE, Map.of())).isEmpty();
    }

    @Test
    void sleepIntervalTakesTheKitsDurationsAndInfinite() {
        for (var c :
                Map.of(
                                "300",
                                Duration.ofMinutes(5),
                                "5m",
                                Duration.ofMinutes(5),
                                "PT5M",
                                Duration.ofMinutes(5),
                                "1h30m",
                                Duration.ofMinutes(90))
                        .entrySet()) {
            Settings.Flags flags =
                    new Settings.Flags(null, null, null, c.getKey(), null, null, null, null);
            assertThat(
                            Settings.resolve(flags, Map.of(), ConfigFile.empty())
                                    .sleepInterval()
                                    .duration())
                    .as(c.getKey())
                    .contains(c.getValue());
        }
        assertThat(
                        Settings.resolve(
                                        Settings.Flags.NONE,
                                        Map.of("GFD_SLEEP_INTERVAL", "infinite"),
                                        ConfigFile.empty())
                                .sleepInterval()
                                .infinite())
                .isTrue();
    }

    @Test
    void badValuesNameTheirSource() {
        assertThatThrownBy(
                        () ->
                                Settings.resolve(
                                        Settings.Flags.NONE,
                                        Map.of("MIG_STRATEGY", "all"),
                                        ConfigFile.empty()))
                .hasMessageContaining("environment variable MIG_STRATEGY");
        assertThatThrownBy(
                        () ->
                                Settings.resolve(
                                        Settings.Flags.NONE,
                                        Map.of("GFD_ONESHOT", "yes"),
                                        ConfigFile.empty()))
                .hasMessageContaining("environment variable GFD_ONESHOT");
        Settings.Flags flags = new Settings.Flags(null, null, null, "10x", null, null, null, null);
        assertThatThrownBy(() -> Settings.resolve(flags, Map.of(), ConfigFile.empty()))
                .hasMessageStartingWith("--sleep-interval: '10x' is not a duration");
        assertThatThrownBy(
                        () ->
                                Settings.resolve(
                                        Settings.Flags.NONE,
                                        Map.of("GFD_SLEEP_INTERVAL", "0s"),
                                        ConfigFile.empty()))
                .hasMessageStartingWith("environment variable GFD_SLEEP_INTERVAL: ");
        Settings.Flags api =
                new Settings.Flags(null, null, null, null, null, null, "sometimes", null);
        assertThatThrownBy(() -> Settings.resolve(api, Map.of(), ConfigFile.empty()))
                .hasMessageContaining("--use-node-feature-api")
                .hasMessageContaining("auto, true or false");
    }
}
