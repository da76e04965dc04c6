package org.gpuoperator.gfd.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.gfd.labels.MigStrategy;
import org.gpuoperator.gfd.labels.Sharing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevicePluginConfigTest {

    private static final Path FILE = Path.of("/config/config.yaml");
    private final List<String> warnings = new ArrayList<>();

    private DevicePluginConfig parse(String text) {
        return DevicePluginConfig.parse(FILE, text, warnings::add);
    }

    @Test
    void timeSlicingConfigAsTheDevicePluginReadsIt() {
        DevicePluginConfig c = parse("""
                version: v1
                flags:
                  migStrategy: mixed
                  failOnInitError: true
                  plugin:
                    deviceListStrategy: [envvar, cdi-annotations]
                  gfd:
                    oneshot: false
                    noTimestamp: true
                    sleepInterval: 30s
                    outputFile: /etc/kubernetes/node-feature-discovery/features.d/gfd
                    machineTypeFile: /sys/class/dmi/id/product_name
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                    - name: mig-1g.5gb
                      replicas: 2
                """);

        assertThat(c.migStrategy()).contains(MigStrategy.MIXED);
        assertThat(c.noTimestamp()).contains(true);
        assertThat(c.oneshot()).contains(false);
        assertThat(c.sleepInterval()).contains(new SleepInterval(java.util.Optional.of(Duration.ofSeconds(30))));
        assertThat(c.outputFile()).contains("/etc/kubernetes/node-feature-discovery/features.d/gfd");
        assertThat(c.sharing()).isEqualTo(new Sharing(Sharing.Strategy.TIME_SLICING, false,
                Map.of("nvidia.com/gpu", 4, "nvidia.com/mig-1g.5gb", 2)));
        assertThat(warnings).isEmpty();
    }

    @Test
    void jsonWithRenameByDefault() {
        DevicePluginConfig c = parse("""
                {"version": "v1", "sharing": {"timeSlicing": {"renameByDefault": true,
                  "resources": [{"name": "nvidia.com/gpu", "replicas": 10, "devices": "all"}]}}}
                """);

        assertThat(c.sharing()).isEqualTo(new Sharing(Sharing.Strategy.TIME_SLICING, true, Map.of("nvidia.com/gpu", 10)));
        assertThat(c.migStrategy()).isEmpty();
    }

    @Test
    void mpsWinsOverTimeSlicing() {
        DevicePluginConfig c = parse("""
                sharing:
                  timeSlicing:
                    resources: [{name: nvidia.com/gpu, replicas: 4}]
                  mps:
                    resources: [{name: nvidia.com/gpu, replicas: 2}]
                """);

        assertThat(c.sharing()).isEqualTo(new Sharing(Sharing.Strategy.MPS, false, Map.of("nvidia.com/gpu", 2)));
    }

    @Test
    void emptyFilesAndFilesWithoutSharingShareNothing() {
        assertThat(parse("")).isEqualTo(DevicePluginConfig.EMPTY);
        assertThat(parse("version: v1\nflags: {migStrategy: single}\n").sharing()).isEqualTo(Sharing.NONE);
    }

    @Test
    void errorsNameTheFileAndTheField() {
        assertThatThrownBy(() -> parse("version: v2\n"))
                .isInstanceOf(ConfigFileException.class).hasMessageContaining("/config/config.yaml")
                .hasMessageContaining("field version").hasMessageContaining("v2");
        assertThatThrownBy(() -> parse("sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n"))
                .hasMessageContaining("field sharing.timeSlicing.resources[0].replicas")
                .hasMessageContaining(">= 2");
        assertThatThrownBy(() -> parse("sharing:\n  timeSlicing:\n    resources:\n    - replicas: 3\n"))
                .hasMessageContaining("field sharing.timeSlicing.resources[0].name");
        assertThatThrownBy(() -> parse("sharing:\n  mps:\n    resources: []\n"))
                .hasMessageContaining("field sharing.mps.resources").hasMessageContaining("no resources");
        assertThatThrownBy(() -> parse("sharing:\n  timeSlicing:\n    resources:\n    - {name: gpu, replicas: four}\n"))
                .hasMessageContaining("resources[0].replicas").hasMessageContaining("integer");
        assertThatThrownBy(() -> parse("flags:\n  migStrategy: all\n"))
                .hasMessageContaining("flags.migStrategy").hasMessageContaining("'all'");
        assertThatThrownBy(() -> parse("flags:\n  gfd:\n    sleepInterval: soon\n"))
                .hasMessageContaining("flags.gfd.sleepInterval");
        assertThatThrownBy(() -> parse("flags:\n  gfd:\n    oneshot: maybe\n"))
                .hasMessageContaining("flags.gfd.oneshot").hasMessageContaining("true or false");
        assertThatThrownBy(() -> parse("sharing:\n  timeSlicing:\n    resources:\n    - {name: 'Bad_Name', replicas: 2}\n"))
                .hasMessageContaining("invalid resource name 'Bad_Name'");
        assertThatThrownBy(() -> parse("sharing: [1, 2]\n"))
                .hasMessageContaining("field sharing").hasMessageContaining("expected an object");
    }

    @Test
    void yamlSyntaxErrorsGiveTheLine() {
        assertThatThrownBy(() -> parse("version: v1\nsharing:\n  timeSlicing: [\n"))
                .isInstanceOf(ConfigFileException.class).hasMessageContaining("/config/config.yaml")
                .hasMessageContaining("line");
    }

    @Test
    void misplacedFieldsAreReported() {
        // upstream issue #1433: renameByDefault put under flags is silently ignored there
        parse("""
                version: v1
                renameByDefault: true
                sharing:
                  timeslicing:
                    resources: [{name: nvidia.com/gpu, replicas: 4}]
                """);

        assertThat(warnings).anyMatch(w -> w.contains("field renameByDefault"))
                .anyMatch(w -> w.contains("field sharing.timeslicing"));
    }

    @Test
    void anUnreadableFileIsNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> DevicePluginConfig.load(dir.resolve("missing.yaml"), w -> {}))
                .isInstanceOf(ConfigFileException.class).hasMessageContaining("missing.yaml");
    }

    @Test
    void loadReadsTheFile(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("c.yaml"), "flags: {migStrategy: none}\n");
        assertThat(DevicePluginConfig.load(f, w -> {}).migStrategy()).contains(MigStrategy.NONE);
    }
}
