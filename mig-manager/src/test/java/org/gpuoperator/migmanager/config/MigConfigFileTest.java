package org.gpuoperator.migmanager.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigConfigFileTest {

    private static final String SAMPLE =
            """
            version: v1
            mig-configs:
              all-disabled:
                - devices: all
                  mig-enabled: false
              all-1g.5gb:
                - device-filter: ["0x20B010DE", "0x20b110de"]
                  devices: all
                  mig-enabled: true
                  mig-devices:
                    "1g.5gb": 7
              custom:
                - devices: [0, 1]
                  mig-enabled: true
                  mig-devices: {"3g.20gb": 2}
                - devices: [2]
                  mig-enabled: false
            """;

    private static MigConfigFile parse(String yaml) {
        return MigConfigFile.parse(yaml, "config.yaml");
    }

    /** A file with one config {@code c} holding the one entry given (indented as an entry). */
    private static String entry(String entryYaml) {
        return "version: v1\nmig-configs:\n  c:\n    - " + entryYaml.replace("\n", "\n      ");
    }

    private static void assertError(String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml))
                .isInstanceOf(MigConfigException.class)
                .hasMessage(message);
    }

    @Test
    void parsesNamedConfigsInFileOrder() {
        MigConfigFile file = parse(SAMPLE);

        assertThat(file.source()).isEqualTo("config.yaml");
        assertThat(file.names()).containsExactly("all-disabled", "all-1g.5gb", "custom");
        assertThat(file.config("all-disabled").orElseThrow())
                .containsExactly(
                        new MigConfigEntry(MigConfigEntry.Devices.ALL, List.of(), false, Map.of()));
        MigConfigEntry small = file.config("all-1g.5gb").orElseThrow().getFirst();
        assertThat(small.deviceFilter()).containsExactly("0x20B010DE", "0x20B110DE");
        assertThat(small.migEnabled()).isTrue();
        assertThat(small.migDevices()).containsExactly(Map.entry("1g.5gb", 7));
        List<MigConfigEntry> custom = file.config("custom").orElseThrow();
        assertThat(custom.get(0).devices()).isEqualTo(MigConfigEntry.Devices.indices(0, 1));
        assertThat(custom.get(0).migDevices()).containsExactly(Map.entry("3g.20gb", 2));
        assertThat(custom.get(1).devices().includes(2)).isTrue();
        assertThat(custom.get(1).devices().includes(0)).isFalse();
        assertThat(file.config("nope")).isEmpty();
    }

    @Test
    void deviceFilterMatchesIdsInAnySpellingAndNothingWhenTheIdIsUnknown() {
        MigConfigEntry entry = parse(SAMPLE).config("all-1g.5gb").orElseThrow().getFirst();

        assertThat(entry.matchesDeviceFilter("0x20b010de")).isTrue();
        assertThat(entry.matchesDeviceFilter("0x20B210DE")).isFalse();
        assertThat(entry.matchesDeviceFilter(null)).isFalse();
        MigConfigEntry unfiltered = parse(SAMPLE).config("all-disabled").orElseThrow().getFirst();
        assertThat(unfiltered.matchesDeviceFilter(null)).isTrue();
    }

    @Test
    void acceptsOneFilterStringAnUnquotedHexIdAndMigOnWithoutDevices() {
        MigConfigFile file =
                parse(
                        entry(
                                """
                                device-filter: 0x20B710DE
                                devices: all
                                mig-enabled: true
                                mig-devices: {}"""));

        MigConfigEntry e = file.config("c").orElseThrow().getFirst();
        assertThat(e.deviceFilter()).containsExactly("0x20B710DE");
        assertThat(e.migEnabled()).isTrue();
        assertThat(e.migDevices()).isEmpty();
    }

    @Test
    void acceptsZeroCountsBesideAPositiveOne() {
        MigConfigEntry e =
                parse(
                                entry(
                                        """
                                        devices: all
                                        mig-enabled: true
                                        mig-devices: {"1g.5gb": 0, "3g.20gb": 1, "1g.10gb+me": 0}"""))
                        .config("c")
                        .orElseThrow()
                        .getFirst();

        assertThat(e.migDevices())
                .containsExactly(
                        Map.entry("1g.5gb", 0),
                        Map.entry("3g.20gb", 1),
                        Map.entry("1g.10gb+me", 0));
    }

    @Test
    void readsAFileAndNamesAMissingOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.yaml");
        java.nio.file.Files.writeString(file, SAMPLE);

        assertThat(MigConfigFile.read(file).source()).isEqualTo(file.toString());
        assertThatThrownBy(() -> MigConfigFile.read(dir.resolve("gone.yaml")))
                .isInstanceOf(MigConfigException.class)
                .hasMessage(dir.resolve("gone.yaml") + ": config file does not exist");
    }

    @Test
    void refusesBadTopLevels() {
        assertError("", "config.yaml: empty config (expected version: v1 and mig-configs)");
        assertError("[1, 2]", "config.yaml: must be a map, got a list");
        assertError(
                "mig-configs: {a: [{devices: all, mig-enabled: false}]}",
                "config.yaml: version: missing (expected v1)");
        assertError(
                "version: v2\nmig-configs: {}",
                "config.yaml: version: unknown version 'v2' (expected v1)");
        assertError(
                "version: 1\nmig-configs: {}",
                "config.yaml: version: unknown version 1 (expected v1)");
        assertError(
                "version: v1\nmig-config: {}\nflags: {}",
                "config.yaml: unknown fields 'mig-config', 'flags' (expected version,"
                        + " mig-configs)");
        assertError(
                "version: v1", "config.yaml: mig-configs: at least one named config is required");
        assertError(
                "version: v1\nmig-configs: {}",
                "config.yaml: mig-configs: at least one named config is required");
        assertError(
                "version: v1\nmig-configs: [a]",
                "config.yaml: mig-configs: must be a map, got a list");
        assertError(
                "version: v1\nmig-configs:\n  on: [{devices: all, mig-enabled: false}]",
                "config.yaml: mig-configs: config name true is read as a boolean (quote it)");
        assertError(
                "version: v1\nmig-configs:\n  a: []",
                "config.yaml: mig-configs.a: at least one entry is required");
        assertError(
                "version: v1\nmig-configs:\n  a: all",
                "config.yaml: mig-configs.a: must be a list of entries (devices, mig-enabled,"
                        + " ...), got 'all'");
        assertThatThrownBy(() -> parse("version: v1\nmig-configs: {a: [}"))
                .isInstanceOf(MigConfigException.class)
                .hasMessageStartingWith("config.yaml: not valid YAML: ");
    }

    @Test
    void refusesTwoConfigsOfOneName() {
        assertThatThrownBy(
                        () ->
                                parse(
                                        """
                                        version: v1
                                        mig-configs:
                                          a:
                                            - {devices: all, mig-enabled: false}
                                          a:
                                            - {devices: all, mig-enabled: false}
                                        """))
                .isInstanceOf(MigConfigException.class)
                .hasMessageStartingWith("config.yaml: not valid YAML: ")
                .hasMessageContaining("duplicate key a");
    }

    @Test
    void refusesBadEntryFieldsNamingConfigAndField() {
        assertError(
                "version: v1\nmig-configs:\n  c: [all]",
                "config.yaml: mig-configs.c[0]: must be a map, got 'all'");
        assertError(
                entry("devices: all\nmig-enabled: false\nmig-device: {}"),
                "config.yaml: mig-configs.c[0]: unknown field 'mig-device' (expected"
                        + " device-filter, devices, mig-enabled, mig-devices)");
        assertError(entry("mig-enabled: false"), "config.yaml: mig-configs.c[0].devices: required");
        assertError(entry("devices: all"), "config.yaml: mig-configs.c[0].mig-enabled: required");
        assertError(
                entry("devices: some\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices: must be 'all' or a list of GPU indices,"
                        + " got 'some'");
        assertError(
                entry("devices: 0\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices: must be 'all' or a list of GPU indices,"
                        + " got 0");
        assertError(
                entry("devices: []\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices: must name at least one GPU index (or be"
                        + " 'all')");
        assertError(
                entry("devices: [0, -1]\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices[1]: must be a GPU index (0 or more), got"
                        + " -1");
        assertError(
                entry("devices: [0, \"1\"]\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices[1]: must be a GPU index (0 or more), got"
                        + " '1'");
        assertError(
                entry("devices: [1, 1]\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].devices: GPU 1 is listed twice");
        assertError(
                entry("devices: all\nmig-enabled: maybe"),
                "config.yaml: mig-configs.c[0].mig-enabled: must be true or false, got 'maybe'");
    }

    @Test
    void refusesBadMigDevices() {
        assertError(
                entry("devices: all\nmig-enabled: true"),
                "config.yaml: mig-configs.c[0].mig-devices: required when mig-enabled is true ({}"
                        + " for MIG mode on with no devices)");
        assertError(
                entry("devices: all\nmig-enabled: false\nmig-devices: {1g.5gb: 7}"),
                "config.yaml: mig-configs.c[0].mig-devices: must be empty when mig-enabled is"
                        + " false");
        assertError(
                entry("devices: all\nmig-enabled: true\nmig-devices: [1g.5gb]"),
                "config.yaml: mig-configs.c[0].mig-devices: must be a map, got a list");
        assertError(
                "version: v1\nmig-configs:\n  all-1g.5gb:\n    - devices: all\n"
                        + "      mig-enabled: true\n      mig-devices: {\"1g.5gb\": x}",
                "config.yaml: mig-configs.all-1g.5gb[0].mig-devices: count of '1g.5gb' must be a"
                        + " whole number, 0 or more, got 'x'");
        assertError(
                entry("devices: all\nmig-enabled: true\nmig-devices: {1g.5gb: -1}"),
                "config.yaml: mig-configs.c[0].mig-devices: count of '1g.5gb' must be a whole"
                        + " number, 0 or more, got -1");
        assertError(
                entry("devices: all\nmig-enabled: true\nmig-devices: {1g.5gb: 1.5}"),
                "config.yaml: mig-configs.c[0].mig-devices: count of '1g.5gb' must be a whole"
                        + " number, 0 or more, got 1.5");
        assertError(
                entry("devices: all\nmig-enabled: true\nmig-devices: {1g: 7}"),
                "config.yaml: mig-configs.c[0].mig-devices: '1g' is not a MIG profile name"
                        + " ([<c>c.]<g>g.<memory>gb, as 1g.5gb)");
        assertError(
                entry("devices: all\nmig-enabled: true\nmig-devices: {1g.5gb: 0}"),
                "config.yaml: mig-configs.c[0].mig-devices: all counts are 0 (write mig-devices:"
                        + " {} for MIG mode on with no devices)");
    }

    @Test
    void acceptsProfileNamesWithComputeSlicesAndAttributes() {
        MigConfigEntry e =
                parse(
                                entry(
                                        "devices: all\nmig-enabled: true\nmig-devices:"
                                                + " {1c.3g.20gb: 1, 1g.24gb+me.all: 1,"
                                                + " 1g.24gb-me: 1, 4g.96gb+gfx: 1}"))
                        .config("c")
                        .orElseThrow()
                        .getFirst();

        assertThat(e.migDevices().keySet())
                .containsExactly("1c.3g.20gb", "1g.24gb+me.all", "1g.24gb-me", "4g.96gb+gfx");
    }

    @Test
    void refusesBadDeviceFilters() {
        assertError(
                entry("device-filter: A100\ndevices: all\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].device-filter: must be a PCI device id 0xDDDDVVVV"
                        + " (device, then vendor: 0x20B010DE), got 'A100'");
        assertError(
                entry(
                        "device-filter: [\"0x20B010DE\", \"0x20B0\"]\ndevices: all\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].device-filter[1]: must be a PCI device id"
                        + " 0xDDDDVVVV (device, then vendor: 0x20B010DE), got '0x20B0'");
        assertError(
                entry("device-filter: \"0x20B010DE:0x145F10DE\"\ndevices: all\nmig-enabled: false"),
                "config.yaml: mig-configs.c[0].device-filter: must be a PCI device id 0xDDDDVVVV"
                        + " (device, then vendor: 0x20B010DE), got '0x20B010DE:0x145F10DE'"
                        + " (subsystem ids, 0xDDDDVVVV:0xSSSSVVVV, are not supported)");
    }

    @Test
    void theDefaultConfigParsesWithUpstreamsNames() {
        MigConfigFile file = DefaultMigConfig.file();

        assertThat(file.source()).isEqualTo("default-mig-parted-config/config.yaml");
        assertThat(file.names())
                .contains(
                        "all-disabled",
                        "all-enabled",
                        "all-1g.5gb",
                        "all-2g.10gb",
                        "all-3g.20gb",
                        "all-7g.40gb",
                        "all-1g.10gb",
                        "all-2g.20gb",
                        "all-3g.40gb",
                        "all-7g.80gb",
                        "all-balanced");
        assertThat(file.config("all-enabled").orElseThrow().getFirst())
                .isEqualTo(
                        new MigConfigEntry(MigConfigEntry.Devices.ALL, List.of(), true, Map.of()));
        assertThat(file.config("all-1g.10gb").orElseThrow())
                .extracting(e -> e.migDevices().get("1g.10gb"))
                .containsExactly(7, 4);
        assertThat(file.config("all-balanced").orElseThrow())
                .allSatisfy(e -> assertThat(e.deviceFilter()).isNotEmpty());
    }
}
