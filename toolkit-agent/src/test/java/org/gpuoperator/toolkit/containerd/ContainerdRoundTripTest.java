package org.gpuoperator.toolkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tomlj.TomlParseResult;

/**
 * The round-trip corpus: each config gets only our tables added; everything else keeps its bytes;
 * removal gives the exact original back; a second run changes nothing.
 */
class ContainerdRoundTripTest {

    static final String DIR = "/usr/local/nvidia/toolkit";
    static final NvidiaRuntimes PLAIN = new NvidiaRuntimes(DIR, false, false);
    static final NvidiaRuntimes CDI_DEFAULT = new NvidiaRuntimes(DIR, true, true);

    @TempDir Path tmp;

    static String corpus(String name) throws IOException {
        try (InputStream in =
                ContainerdRoundTripTest.class.getResourceAsStream("/corpus/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static Optional<Integer> versionOf(String name) {
        return name.endsWith("config-v3.toml.tmpl")
                ? Optional.of(3)
                : name.endsWith(".tmpl") ? Optional.of(2) : Optional.empty();
    }

    static ContainerdConfig.Result configure(String name, String text, NvidiaRuntimes rt)
            throws ConfigException {
        return ContainerdConfig.configure(
                new ContainerdConfig.Input(name, text, name.endsWith(".tmpl")),
                Optional.empty(),
                rt,
                versionOf(name),
                Optional.empty(),
                Optional.empty());
    }

    /** Our text is exactly one block between the markers, appended after a blank line. */
    static String withoutOurBlock(String out) {
        int b = out.indexOf(ContainerdConfig.BEGIN);
        int e = out.indexOf(ContainerdConfig.END);
        assertThat(b).as("begin marker").isGreaterThan(-1);
        assertThat(e).as("end marker").isGreaterThan(b);
        assertThat(out.substring(e + ContainerdConfig.END.length())).isEqualTo("\n");
        return out.substring(0, b - 1);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "v1.toml",
                "v3.toml",
                "config.toml.tmpl",
                "config-v3.toml.tmpl",
                "comments.toml",
                "empty-tables.toml",
                "custom-default.toml"
            })
    void onlyOurTablesAreAddedAndRemovalRestoresTheBytes(String name) throws Exception {
        String in = corpus(name);
        ContainerdConfig.Result r = configure(name, in, PLAIN);

        assertThat(withoutOurBlock(r.mainText())).isEqualTo(in);
        TomlParseResult out =
                TomlCheck.parse(
                        name,
                        name.endsWith(".tmpl")
                                ? TomlCheck.templateBody(r.mainText())
                                : r.mainText());
        List<String> nvidia =
                ContainerdConfig.append(ContainerdConfig.runtimesPath(r.version()), "nvidia");
        assertThat(out.getString(ContainerdConfig.append(nvidia, "options", "BinaryName")))
                .isEqualTo(DIR + "/nvidia-container-runtime");
        assertThat(out.getString(ContainerdConfig.append(nvidia, "runtime_type")))
                .isEqualTo("io.containerd.runc.v2");

        // idempotent: a second run produces the same bytes
        assertThat(configure(name, r.mainText(), PLAIN).mainText()).isEqualTo(r.mainText());
        // surgical removal gives the original bytes back
        String removed =
                ContainerdConfig.unconfigure(
                        new ContainerdConfig.Input(name, r.mainText(), name.endsWith(".tmpl")),
                        PLAIN,
                        versionOf(name),
                        r.previousDefault(),
                        Optional.empty());
        assertThat(removed).isEqualTo(in);
    }

    @Test
    void versionIsDetectedFromTheFile() throws Exception {
        assertThat(configure("v1.toml", corpus("v1.toml"), PLAIN).version()).isEqualTo(1);
        assertThat(configure("comments.toml", corpus("comments.toml"), PLAIN).version())
                .isEqualTo(2);
        assertThat(configure("v3.toml", corpus("v3.toml"), PLAIN).version()).isEqualTo(3);
        assertThat(configure("empty.toml", "", PLAIN).version()).isEqualTo(2);
        assertThat(
                        configure("x/config-v3.toml.tmpl", corpus("config-v3.toml.tmpl"), PLAIN)
                                .version())
                .isEqualTo(3);
    }

    @Test
    void v1GetsRuntimeAndBinaryNameUnderPluginsCri() throws Exception {
        ContainerdConfig.Result r = configure("v1.toml", corpus("v1.toml"), PLAIN);
        TomlParseResult out = TomlCheck.parse("v1", r.mainText());
        assertThat(out.getString("plugins.cri.containerd.runtimes.nvidia.options.Runtime"))
                .isEqualTo(DIR + "/nvidia-container-runtime");
        assertThat(out.getBoolean("plugins.cri.containerd.runtimes.nvidia.options.SystemdCgroup"))
                .isTrue();
    }

    @Test
    void customDefaultRuntimeOptionsAreCopiedIncludingSystemdCgroup() throws Exception {
        ContainerdConfig.Result r =
                configure("custom-default.toml", corpus("custom-default.toml"), PLAIN);
        TomlParseResult out = TomlCheck.parse("custom", r.mainText());
        String nv = "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia";
        assertThat(out.getBoolean(nv + ".options.SystemdCgroup")).isTrue();
        assertThat(out.getString(nv + ".options.Root")).isEmpty();
        assertThat(out.getArray(nv + ".pod_annotations").getString(0))
                .isEqualTo("io.kubernetes.cri.*");
        assertThat(out.getString(nv + ".options.BinaryName"))
                .isEqualTo(DIR + "/nvidia-container-runtime");
        assertThat(r.previousDefault()).contains("runc-systemd");
    }

    @Test
    void setAsDefaultChangesOneLineAndCleanupRestoresThePreviousDefault() throws Exception {
        String in = corpus("custom-default.toml");
        ContainerdConfig.Result r = configure("custom-default.toml", in, CDI_DEFAULT);
        TomlParseResult out = TomlCheck.parse("custom", r.mainText());
        assertThat(
                        out.getString(
                                "plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name"))
                .isEqualTo("nvidia");
        assertThat(withoutOurBlock(r.mainText()))
                .isEqualTo(
                        in.replace(
                                "default_runtime_name = \"runc-systemd\"",
                                "default_runtime_name = \"nvidia\""));
        assertThat(
                        out.getString(
                                "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia-cdi.options.BinaryName"))
                .isEqualTo(DIR + "/nvidia-container-runtime.cdi");
        assertThat(
                        out.getString(
                                "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia-legacy.options.BinaryName"))
                .isEqualTo(DIR + "/nvidia-container-runtime.legacy");

        // a second run remembers the real previous default, not "nvidia"
        ContainerdConfig.Result again =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input("c", r.mainText(), false),
                        Optional.empty(),
                        CDI_DEFAULT,
                        Optional.empty(),
                        Optional.empty(),
                        r.previousDefault());
        assertThat(again.mainText()).isEqualTo(r.mainText());
        assertThat(again.previousDefault()).contains("runc-systemd");

        String removed =
                ContainerdConfig.unconfigure(
                        new ContainerdConfig.Input("c", r.mainText(), false),
                        CDI_DEFAULT,
                        Optional.empty(),
                        r.previousDefault(),
                        Optional.empty());
        assertThat(removed).isEqualTo(in);
    }

    @Test
    void missingFileGetsAVersionLineSoContainerdReadsItAsV2() throws Exception {
        ContainerdConfig.Result r = configure("config.toml", "", PLAIN);
        assertThat(r.mainText()).startsWith("version = 2\n");
        assertThat(TomlCheck.parse("x", r.mainText()).getLong("version")).isEqualTo(2);
    }

    @Test
    void dropInModeWritesOnlyOurTablesAndAnImport() throws Exception {
        String in = corpus("v3.toml");
        ContainerdConfig.Result r =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input("v3.toml", in, false),
                        Optional.empty(),
                        PLAIN,
                        Optional.empty(),
                        Optional.of("/etc/containerd/conf.d/99-nvidia.toml"),
                        Optional.empty());
        assertThat(r.mainText())
                .isEqualTo(
                        in.replace(
                                "imports = []", "imports = [\"/etc/containerd/conf.d/*.toml\"]"));
        assertThat(r.importAdded()).contains("/etc/containerd/conf.d/*.toml");
        TomlParseResult dropIn = TomlCheck.parse("drop-in", r.dropInText().orElseThrow());
        assertThat(dropIn.getLong("version")).isEqualTo(3);
        assertThat(
                        dropIn.getBoolean(
                                "plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.nvidia.options.SystemdCgroup"))
                .isTrue();
        assertThat(dropIn.getTable("plugins.\"io.containerd.cri.v1.runtime\".containerd").keySet())
                .containsExactly("runtimes");

        String removed =
                ContainerdConfig.unconfigure(
                        new ContainerdConfig.Input("v3.toml", r.mainText(), false),
                        PLAIN,
                        Optional.empty(),
                        Optional.of("runc"),
                        r.importAdded());
        assertThat(removed)
                .isEqualTo(
                        in.replace("imports = []", "imports = []".replace("[]", "[]"))
                                .replace("imports = []\n", ""));
    }

    @Test
    void malformedConfigNamesFileAndLine() {
        String bad =
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"\n  sandbox_image = \"x\"\n";
        assertThatThrownBy(() -> configure("/etc/containerd/config.toml", bad, PLAIN))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("/etc/containerd/config.toml:2:");
    }

    @Test
    void disabledCriPluginIsRefused() {
        assertThatThrownBy(
                        () ->
                                configure(
                                        "c.toml",
                                        "version = 2\ndisabled_plugins = [\"io.containerd.grpc.v1.cri\"]\n",
                                        PLAIN))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("CRI plugin is disabled");
    }

    @Test
    void optionsComeFromTheDumpWhenTheFileHasNoRuntime() throws Exception {
        String dump =
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                        + "  runtime_type = \"io.containerd.runc.v2\"\n"
                        + "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n    SystemdCgroup = true\n";
        ContainerdConfig.Result r =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input("c", corpus("comments.toml"), false),
                        Optional.of(dump),
                        PLAIN,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty());
        assertThat(
                        TomlCheck.parse("c", r.mainText())
                                .getBoolean(
                                        "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options.SystemdCgroup"))
                .isTrue();
    }

    /**
     * containerd's own default config, generated here, round-trips and is accepted by containerd
     * itself.
     */
    @Test
    void containerdsOwnDefaultConfigRoundTripsAndLoads() throws Exception {
        assumeTrue(ContainerdBinary.available(), ContainerdBinary.SKIP_MESSAGE);
        String in = ContainerdBinary.configDefault();
        ContainerdConfig.Result r = configure("default.toml", in, PLAIN);
        assertThat(withoutOurBlock(r.mainText())).isEqualTo(in);
        assertThat(
                        ContainerdConfig.unconfigure(
                                new ContainerdConfig.Input("d", r.mainText(), false),
                                PLAIN,
                                Optional.empty(),
                                r.previousDefault(),
                                Optional.empty()))
                .isEqualTo(in);

        Path f = tmp.resolve("config.toml");
        Files.writeString(f, r.mainText());
        ContainerdBinary.Run dump = ContainerdBinary.dump(f);
        assertThat(dump.exit()).as(dump.err()).isZero();
        assertThat(ContainerdConfig.binaryName("dump", dump.out(), "nvidia"))
                .contains(DIR + "/nvidia-container-runtime");
        assertThat(ContainerdConfig.binaryName("dump", dump.out(), "runc")).contains("");
    }

    /**
     * Every v1/v2 corpus file, rewritten, is accepted by the real containerd with our runtime in
     * effect.
     */
    @ParameterizedTest
    @ValueSource(strings = {"v1.toml", "comments.toml", "empty-tables.toml", "custom-default.toml"})
    void rewrittenCorpusLoadsInRealContainerd(String name) throws Exception {
        assumeTrue(ContainerdBinary.available(), ContainerdBinary.SKIP_MESSAGE);
        ContainerdConfig.Result r = configure(name, corpus(name), CDI_DEFAULT);
        Path f = tmp.resolve(name);
        Files.writeString(f, r.mainText());
        ContainerdBinary.Run dump = ContainerdBinary.dump(f);
        assertThat(dump.exit()).as(dump.err()).isZero();
        assertThat(ContainerdConfig.binaryName("dump", dump.out(), "nvidia"))
                .contains(DIR + "/nvidia-container-runtime");
        assertThat(
                        TomlCheck.parse("dump", dump.out())
                                .getString(
                                        "plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name"))
                .isEqualTo("nvidia");
    }

    /**
     * containerd 1.6 replaces a plugin's whole table with an imported one, so the drop-in carries
     * the main file's CRI table: the real containerd's effective config of main file + drop-in is
     * the effective config of the main file edited in place, and the main file keeps its bytes but
     * for the import.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "comments.toml",
                "empty-tables.toml",
                "custom-default.toml",
                "containerd-1.7-v2.toml",
                "containerd-1.7-no-cdi-keys.toml"
            })
    void theDropInOn16HasTheEffectOfTheInPlaceEdit(String name) throws Exception {
        assumeTrue(ContainerdBinary.available(), ContainerdBinary.SKIP_MESSAGE);
        String in = corpus(name);
        Path dropIn = tmp.resolve("conf.d/99-nvidia.toml");
        ContainerdConfig.Cdi cdi =
                new ContainerdConfig.Cdi(true, List.of("cdi.k8s.io/"), java.util.Map.of());
        ContainerdConfig.Result inPlace =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input(name, in, false),
                        Optional.empty(),
                        CDI_DEFAULT,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        cdi,
                        false);
        ContainerdConfig.Result withDropIn =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input(name, in, false),
                        Optional.empty(),
                        CDI_DEFAULT,
                        Optional.empty(),
                        Optional.of(dropIn.toString()),
                        Optional.empty(),
                        cdi,
                        true);
        String imports = "imports = [\"" + tmp.resolve("conf.d") + "/*.toml\"]\n";
        assertThat(withDropIn.mainText().replace(imports, "")).isEqualTo(in);

        Path edited = tmp.resolve("edited.toml");
        Files.writeString(edited, inPlace.mainText());
        Path main = tmp.resolve("main.toml");
        Files.writeString(main, withDropIn.mainText());
        Files.createDirectories(dropIn.getParent());
        Files.writeString(dropIn, withDropIn.dropInText().orElseThrow());
        ContainerdBinary.Run expected = ContainerdBinary.dump(edited);
        ContainerdBinary.Run actual = ContainerdBinary.dump(main);
        assertThat(expected.exit()).as(expected.err()).isZero();
        assertThat(actual.exit()).as(actual.err()).isZero();
        assertThat(withoutImports(actual.out())).isEqualTo(withoutImports(expected.out()));
        assertThat(ContainerdConfig.binaryName("dump", actual.out(), "nvidia-cdi"))
                .contains(DIR + "/nvidia-container-runtime.cdi");
        // without the copy, 1.6 would lose the main file's CRI keys: the check can fail
        Files.writeString(
                dropIn,
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
                        + "  runtime_type = \"io.containerd.runc.v2\"\n");
        assertThat(withoutImports(ContainerdBinary.dump(main).out()))
                .isNotEqualTo(withoutImports(expected.out()));
    }

    private static String withoutImports(String dump) {
        return dump.replaceFirst("(?m)^imports = .*\n", "");
    }
}
