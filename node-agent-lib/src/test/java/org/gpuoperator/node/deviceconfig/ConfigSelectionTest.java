package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSelectionTest {

    static final Path DIR = Path.of("/available-configs");
    static final Set<String> KEYS = Set.of("a100", "ts-4");

    @Test
    void theLabelNamesTheConfig() {
        var choice = new ConfigSelection(DIR, "a100").select("ts-4", KEYS);
        assertThat(choice.name()).isEqualTo("ts-4");
        assertThat(choice.file()).isEqualTo(DIR.resolve("ts-4"));
        assertThat(choice.fromLabel()).isTrue();
    }

    @Test
    void withoutTheLabelTheDefaultAndWithoutADefaultNone() {
        assertThat(new ConfigSelection(DIR, "a100").select(null, KEYS).name()).isEqualTo("a100");
        assertThat(new ConfigSelection(DIR, "a100").select("  ", KEYS).name()).isEqualTo("a100");
        assertThat(new ConfigSelection(DIR, null).select(null, KEYS).none()).isTrue();
        assertThat(new ConfigSelection(DIR, "").select(null, KEYS))
                .isEqualTo(ConfigSelection.Choice.NONE);
    }

    @Test
    void anUnknownNameIsRefusedNamingItWhereItCameFromAndTheKeys() {
        assertThatThrownBy(() -> new ConfigSelection(DIR, null).select("nope", KEYS))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "config 'nope' (node label nvidia.com/device-plugin.config) is not a key of"
                                + " the config ConfigMap mounted at /available-configs; keys: a100,"
                                + " ts-4");
        assertThatThrownBy(() -> new ConfigSelection(DIR, "gone").select(null, Set.of()))
                .hasMessageContaining("config 'gone' (devicePlugin.config.default)")
                .hasMessageEndingWith("keys: none");
        // never a path outside the mounted directory, nor the kubelet's own entries
        assertThatThrownBy(() -> new ConfigSelection(DIR, null).select("..data", Set.of("..data")))
                .hasMessageContaining("config '..data'");
    }

    @Test
    void theChosenFileMustValidateAndTheErrorNamesTheConfigAndTheField(@TempDir Path dir)
            throws Exception {
        Files.writeString(
                dir.resolve("ts-4"),
                "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}\n");
        Files.writeString(
                dir.resolve("broken"),
                "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}\n");
        Files.createDirectory(dir.resolve("..2026_12_02_09_00_00.1"));
        Files.createSymbolicLink(dir.resolve("..data"), dir.resolve("..2026_12_02_09_00_00.1"));

        assertThat(ConfigSelection.available(dir)).containsExactly("broken", "ts-4");
        ConfigSelection selection = new ConfigSelection(dir, null);
        assertThat(selection.selectValid("ts-4").file()).isEqualTo(dir.resolve("ts-4"));
        assertThatThrownBy(() -> selection.selectValid("broken"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config 'broken': " + dir.resolve("broken") + ": ")
                .hasMessageContaining(
                        "sharing.timeSlicing.resources[0].replicas: must be at least 2");
        assertThat(selection.selectValid(null).none()).isTrue();
    }
}
