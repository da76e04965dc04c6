package org.gpuoperator.toolkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.toolkit.containerd.ContainerdRoundTripTest.corpus;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tomlj.TomlParseResult;

/**
 * CDI in containerd's CRI plugin: {@code enable_cdi = true} and {@code cdi_spec_dirs} on every
 * containerd (1.6 ignores them), in the drop-in (v2 and v3 configs) or in place ({@code --drop-in
 * never}), and everything removed again when CDI is turned off or on uninstall. containerd 1.7 and
 * 2.x are not installed here, so {@code config dump} checks only what 1.6 reads: the rest is proven
 * by parsing the result with tomlj and reading the keys where containerd reads them.
 */
class ContainerdCdiTest {

    static final String DIR = "/usr/local/nvidia/toolkit";
    static final String CONFIG = "/etc/containerd/config.toml";
    static final String DROP_IN = "/etc/containerd/conf.d/99-nvidia.toml";
    static final NvidiaRuntimes CDI = new NvidiaRuntimes(DIR, true, false);
    static final NvidiaRuntimes NO_CDI = new NvidiaRuntimes(DIR, false, false);
    static final List<String> V2_CRI = List.of("plugins", "io.containerd.grpc.v1.cri");
    static final List<String> V3_CRI = List.of("plugins", "io.containerd.cri.v1.runtime");

    /** One node: its config files and the facts the applier keeps between runs. */
    static final class Node {
        final Map<String, Optional<String>> files = new LinkedHashMap<>();
        final Map<String, String> facts = new HashMap<>();

        Node(String config) {
            files.put(CONFIG, Optional.of(config));
            files.put(DROP_IN, Optional.empty());
        }

        /** A run of the agent: configure, then keep files and facts as the applier does. */
        void configure(ContainerdConfigurer c) throws ConfigException {
            RuntimeConfigurer.Plan plan = c.configure(files, facts);
            files.putAll(plan.files());
            facts.putAll(plan.remember());
        }

        void uninstall(ContainerdConfigurer c) throws ConfigException {
            files.putAll(c.unconfigure(files, facts));
        }

        String config() {
            return files.get(CONFIG).orElseThrow();
        }
    }

    static ContainerdConfigurer containerd(int major, int minor, NvidiaRuntimes runtimes) {
        return new ContainerdConfigurer(
                CONFIG,
                DROP_IN,
                runtimes,
                Optional.of(new ContainerdVersion(major, minor)),
                Optional.empty(),
                ContainerdConfigurer.DropIn.AUTO);
    }

    /** {@code --drop-in never}: the main file is edited in place. */
    static ContainerdConfigurer inPlace(int major, int minor, NvidiaRuntimes runtimes) {
        return new ContainerdConfigurer(
                CONFIG,
                DROP_IN,
                runtimes,
                Optional.of(new ContainerdVersion(major, minor)),
                Optional.empty(),
                ContainerdConfigurer.DropIn.NEVER);
    }

    static TomlParseResult parse(String text) throws ConfigException {
        return TomlCheck.parse("test", text);
    }

    static List<String> at(List<String> path, String... more) {
        return ContainerdConfig.append(path, more);
    }

    static void assertCdiOn(TomlParseResult t, List<String> cri) {
        assertThat(t.getBoolean(at(cri, "enable_cdi"))).isTrue();
        assertThat(t.getArray(at(cri, "cdi_spec_dirs")).toList())
                .containsExactly("/etc/cdi", "/var/run/cdi");
    }

    @Test
    void containerd17V2ConfigGetsTheKeysInPlaceAndLosesThemAgain() throws Exception {
        String original = corpus("containerd-1.7-v2.toml");
        Node node = new Node(original);
        node.configure(inPlace(1, 7, CDI));

        TomlParseResult t = parse(node.config());
        assertCdiOn(t, V2_CRI);
        assertThat(t.getString(at(V2_CRI, "sandbox_image")))
                .as("the rest of the CRI table stays")
                .isEqualTo("registry.k8s.io/pause:3.8");
        for (String rt : List.of("nvidia", "nvidia-cdi", "nvidia-legacy")) {
            List<String> table = at(V2_CRI, "containerd", "runtimes", rt);
            assertThat(t.getArray(at(table, "container_annotations")).toList())
                    .as("%s passes the device plugin's CDI annotations", rt)
                    .containsExactly("cdi.k8s.io/*");
            assertThat(t.getBoolean(at(table, "options", "SystemdCgroup"))).isTrue();
        }
        assertThat(node.config())
                .as("enable_cdi changed in place, its comment kept")
                .contains("    enable_cdi = true   # off by default in 1.7\n")
                .contains("    cdi_spec_dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n");
        assertThat(node.files.get(DROP_IN)).as("--drop-in never: no drop-in").isEmpty();

        String once = node.config();
        node.configure(inPlace(1, 7, CDI));
        assertThat(node.config()).as("a second run changes nothing").isEqualTo(once);

        node.uninstall(inPlace(1, 7, CDI));
        assertThat(node.config()).as("uninstall restores the bytes").isEqualTo(original);
    }

    @Test
    void turningCdiOffRemovesTheKeysAndTheAnnotations() throws Exception {
        String original = corpus("containerd-1.7-v2.toml");
        Node node = new Node(original);
        node.configure(inPlace(1, 7, CDI));
        node.configure(inPlace(1, 7, NO_CDI));

        Node never = new Node(original);
        never.configure(inPlace(1, 7, NO_CDI));
        assertThat(node.config())
                .as("as if CDI had never been on")
                .isEqualTo(never.config())
                .doesNotContain("container_annotations")
                .contains("enable_cdi = false   # off by default in 1.7");
        TomlParseResult t = parse(node.config());
        assertThat(t.getBoolean(at(V2_CRI, "enable_cdi"))).isFalse();
        assertThat(
                        t.getString(
                                at(
                                        V2_CRI,
                                        "containerd",
                                        "runtimes",
                                        "nvidia-cdi",
                                        "options",
                                        "BinaryName")))
                .as("nvidia-cdi stays registered, as upstream")
                .isEqualTo(DIR + "/nvidia-container-runtime.cdi");

        node.configure(inPlace(1, 7, CDI));
        assertCdiOn(parse(node.config()), V2_CRI);
        node.uninstall(inPlace(1, 7, CDI));
        assertThat(node.config()).isEqualTo(original);
    }

    @Test
    void aCriTableWithoutCdiKeysGetsThemAddedAndRemoved() throws Exception {
        String original = corpus("containerd-1.7-no-cdi-keys.toml");
        Node node = new Node(original);
        node.configure(inPlace(1, 7, CDI));
        assertCdiOn(parse(node.config()), V2_CRI);
        assertThat(node.facts)
                .containsEntry("cdi.enable_cdi", "added")
                .containsEntry("cdi.cdi_spec_dirs", "added");
        node.uninstall(inPlace(1, 7, CDI));
        assertThat(node.config()).isEqualTo(original);
    }

    @Test
    void aConfigWithoutACriTableGetsOneInOurBlock() throws Exception {
        String original =
                "version = 2\n\n[grpc]\n  address = \"/run/containerd/containerd.sock\"\n";
        Node node = new Node(original);
        node.configure(inPlace(1, 7, CDI));
        assertCdiOn(parse(node.config()), V2_CRI);
        String block = node.config().substring(node.config().indexOf(ContainerdConfig.BEGIN));
        assertThat(block).contains("[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true");
        node.uninstall(inPlace(1, 7, CDI));
        assertThat(node.config()).isEqualTo(original);
    }

    @Test
    void containerd2V3ConfigGetsTheKeysInTheDropIn() throws Exception {
        String original = corpus("containerd-2.1-v3.toml");
        Node node = new Node(original);
        node.configure(containerd(2, 1, CDI));

        String dropIn = node.files.get(DROP_IN).orElseThrow();
        TomlParseResult d = parse(dropIn);
        assertCdiOn(d, V3_CRI);
        assertThat(
                        d.getString(
                                at(
                                        V3_CRI,
                                        "containerd",
                                        "runtimes",
                                        "nvidia-cdi",
                                        "options",
                                        "BinaryName")))
                .isEqualTo(DIR + "/nvidia-container-runtime.cdi");
        assertThat(
                        d.getArray(
                                        at(
                                                V3_CRI,
                                                "containerd",
                                                "runtimes",
                                                "nvidia",
                                                "container_annotations"))
                                .toList())
                .containsExactly("cdi.k8s.io/*");
        // containerd 2.x merges the drop-in key by key over the main file: the drop-in's value wins
        TomlParseResult main = parse(node.config());
        assertThat(main.getBoolean(at(V3_CRI, "enable_cdi"))).isFalse();
        assertThat(main.getArray(List.of("imports")).toList())
                .containsExactly("/etc/containerd/conf.d/*.toml");

        node.configure(containerd(2, 1, NO_CDI));
        assertThat(node.files.get(DROP_IN).orElseThrow())
                .as("CDI off: the drop-in loses the keys")
                .doesNotContain("enable_cdi")
                .doesNotContain("cdi_spec_dirs")
                .doesNotContain("container_annotations");

        node.uninstall(containerd(2, 1, NO_CDI));
        assertThat(node.files.get(DROP_IN)).isEmpty();
        assertThat(node.config()).isEqualTo(original);
    }

    @Test
    void aV3ConfigEditedInPlaceGetsTheKeysInTheV3CriTable() throws Exception {
        // a 2.x config that cannot take a drop-in (a k3s template): edited in place
        String original = corpus("v3.toml");
        ContainerdConfig.Result r =
                ContainerdConfig.configure(
                        new ContainerdConfig.Input("v3.toml", original, false),
                        Optional.empty(),
                        CDI,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        new ContainerdConfig.Cdi(true, List.of("cdi.k8s.io/"), Map.of()));
        assertCdiOn(parse(r.mainText()), V3_CRI);
        assertThat(r.cdiFacts())
                .containsEntry("cdi.enable_cdi", "was:true")
                .containsEntry("cdi.cdi_spec_dirs", "was:['/etc/cdi', '/var/run/cdi']");
        String removed =
                ContainerdConfig.unconfigure(
                        new ContainerdConfig.Input("v3.toml", r.mainText(), false),
                        CDI,
                        Optional.empty(),
                        r.previousDefault(),
                        Optional.empty(),
                        r.cdiFacts());
        assertThat(removed).isEqualTo(original);
    }

    @Test
    void containerd16And17GetTheKeysInTheDropInWithTheWholeCriTable() throws Exception {
        for (int minor : new int[] {6, 7}) {
            String original = corpus("containerd-1.7-v2.toml");
            Node node = new Node(original);
            node.configure(containerd(1, minor, CDI));
            assertThat(node.config())
                    .as("1.%d: the main file only gains the import", minor)
                    .isEqualTo(
                            original.replace(
                                    "state = \"/run/containerd\"\n",
                                    "state = \"/run/containerd\"\n"
                                            + "imports = [\"/etc/containerd/conf.d/*.toml\"]\n"));
            TomlParseResult d = parse(node.files.get(DROP_IN).orElseThrow());
            assertCdiOn(d, V2_CRI);
            assertThat(d.getString(at(V2_CRI, "sandbox_image")))
                    .as("the main file's CRI keys come along (1.x replaces the whole table)")
                    .isEqualTo("registry.k8s.io/pause:3.8");
            assertThat(d.getString(at(V2_CRI, "cni", "conf_dir"))).isEqualTo("/etc/cni/net.d");
            assertThat(
                            d.getBoolean(
                                    at(
                                            V2_CRI,
                                            "containerd",
                                            "runtimes",
                                            "runc",
                                            "options",
                                            "SystemdCgroup")))
                    .isTrue();
            for (String rt : List.of("nvidia", "nvidia-cdi", "nvidia-legacy")) {
                assertThat(
                                d.getArray(
                                                at(
                                                        V2_CRI,
                                                        "containerd",
                                                        "runtimes",
                                                        rt,
                                                        "container_annotations"))
                                        .toList())
                        .as("1.6's CRI drops CDI devices: %s gets the annotations", rt)
                        .containsExactly("cdi.k8s.io/*");
            }
            String once = node.files.get(DROP_IN).orElseThrow();
            node.configure(containerd(1, minor, CDI));
            assertThat(node.files.get(DROP_IN)).as("a second run changes nothing").contains(once);

            node.configure(containerd(1, minor, NO_CDI));
            TomlParseResult off = parse(node.files.get(DROP_IN).orElseThrow());
            assertThat(off.getBoolean(at(V2_CRI, "enable_cdi")))
                    .as("CDI off: the main file's own value")
                    .isFalse();
            assertThat(node.files.get(DROP_IN).orElseThrow())
                    .doesNotContain("container_annotations");

            node.uninstall(containerd(1, minor, NO_CDI));
            assertThat(node.config()).isEqualTo(original);
            assertThat(node.files.get(DROP_IN)).isEmpty();
        }
        assertThat(cdiInCri(1, 6)).as("enable_cdi on every containerd").isTrue();
        assertThat(cdiInCri(1, 7)).isTrue();
        assertThat(cdiInCri(2, 0)).isTrue();
        assertThat(containerd(1, 6, NO_CDI).cdiInCri()).isFalse();
        assertThat(
                        new ContainerdConfigurer(
                                        "/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl",
                                        DROP_IN,
                                        CDI,
                                        Optional.of(new ContainerdVersion(1, 7)),
                                        Optional.empty(),
                                        ContainerdConfigurer.DropIn.AUTO)
                                .cdiInCri())
                .as("a k3s template renders the CRI table itself")
                .isFalse();
    }

    @Test
    void aNodeEditedInPlaceByAnEarlierRunMovesToTheDropIn() throws Exception {
        String original = corpus("containerd-1.7-v2.toml");
        Node node = new Node(original);
        node.configure(inPlace(1, 7, CDI));
        assertThat(node.facts).containsEntry("cdi.enable_cdi", "was:false");
        node.configure(containerd(1, 7, CDI));
        assertThat(node.config())
                .as("our block and in-place keys gone, only the import added")
                .isEqualTo(
                        original.replace(
                                "state = \"/run/containerd\"\n",
                                "state = \"/run/containerd\"\n"
                                        + "imports = [\"/etc/containerd/conf.d/*.toml\"]\n"));
        assertCdiOn(parse(node.files.get(DROP_IN).orElseThrow()), V2_CRI);
        assertThat(node.facts).containsEntry("cdi.enable_cdi", "none");
        node.uninstall(containerd(1, 7, CDI));
        assertThat(node.config()).isEqualTo(original);
        assertThat(node.files.get(DROP_IN)).isEmpty();
    }

    @Test
    void anotherImportOn1xKeepsTheMainFileEditedInPlace() throws Exception {
        String original =
                "version = 2\nimports = [\"/etc/containerd/site.d/*.toml\"]\n\n"
                        + "[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"x\"\n";
        Node node = new Node(original);
        node.configure(containerd(1, 6, CDI));
        assertThat(node.files.get(DROP_IN))
                .as("our copy of the CRI table would replace the one site.d may hold")
                .isEmpty();
        assertCdiOn(parse(node.config()), V2_CRI);
        node.uninstall(containerd(1, 6, CDI));
        assertThat(node.config()).isEqualTo(original);

        // containerd 2.x merges key by key: the drop-in, the other import kept before ours
        Node two = new Node(original);
        two.configure(containerd(2, 0, CDI));
        assertThat(parse(two.config()).getArray(List.of("imports")).toList())
                .containsExactly("/etc/containerd/site.d/*.toml", "/etc/containerd/conf.d/*.toml");
        assertThat(two.files.get(DROP_IN).orElseThrow()).doesNotContain("sandbox_image");
        two.uninstall(containerd(2, 0, CDI));
        assertThat(two.config()).isEqualTo(original);
    }

    /**
     * The real containerd here (1.6.20) loads a CDI config of ours, main file and drop-in: the
     * annotations reach the nvidia runtimes' config, the main file's CRI keys stay in force, and
     * {@code enable_cdi}, which 1.6 does not know, is ignored.
     */
    @Test
    void realContainerd16LoadsOurCdiConfig(@TempDir Path tmp) throws Exception {
        assumeTrue(ContainerdBinary.available(), ContainerdBinary.SKIP_MESSAGE);
        Path main = tmp.resolve("config.toml");
        Path dropIn = tmp.resolve("conf.d/99-nvidia.toml");
        String original =
                ContainerdBinary.configDefault()
                        .replaceFirst(
                                "sandbox_image = \"[^\"]*\"",
                                "sandbox_image = \"example/pause:1\"");
        Map<String, Optional<String>> files = new LinkedHashMap<>();
        files.put(main.toString(), Optional.of(original));
        files.put(dropIn.toString(), Optional.empty());
        ContainerdConfigurer c =
                new ContainerdConfigurer(
                        main.toString(),
                        dropIn.toString(),
                        CDI,
                        Optional.of(new ContainerdVersion(1, 6)),
                        Optional.empty(),
                        ContainerdConfigurer.DropIn.AUTO);
        RuntimeConfigurer.Plan plan = c.configure(files, Map.of());
        Files.writeString(main, plan.files().get(main.toString()).orElseThrow());
        Files.createDirectories(dropIn.getParent());
        Files.writeString(dropIn, plan.files().get(dropIn.toString()).orElseThrow());
        ContainerdBinary.Run dump = ContainerdBinary.dump(main);
        assertThat(dump.exit()).as(dump.err()).isZero();
        TomlParseResult d = parse(dump.out());
        for (String rt : List.of("nvidia", "nvidia-cdi", "nvidia-legacy")) {
            assertThat(
                            d.getArray(
                                            at(
                                                    V2_CRI,
                                                    "containerd",
                                                    "runtimes",
                                                    rt,
                                                    "container_annotations"))
                                    .toList())
                    .as(rt)
                    .containsExactly("cdi.k8s.io/*");
        }
        assertThat(d.getString(at(V2_CRI, "sandbox_image"))).isEqualTo("example/pause:1");
        assertThat(d.getTable(at(V2_CRI, "containerd", "runtimes", "runc"))).isNotNull();
        assertThat(plan.files().get(dropIn.toString()).orElseThrow()).contains("enable_cdi = true");
        assertThat(d.get(at(V2_CRI, "enable_cdi"))).as("1.6 ignores the key").isNull();
    }

    private static boolean cdiInCri(int major, int minor) {
        return containerd(major, minor, CDI).cdiInCri();
    }

    @Test
    void existingContainerAnnotationsKeepTheirEntriesAfterOurs() throws Exception {
        List<ContainerdConfig.Entry> out =
                ContainerdConfig.withAnnotations(
                        List.of(
                                new ContainerdConfig.Entry(
                                        List.of("container_annotations"),
                                        "[\"io.kubernetes.cri.*\", \"cdi.k8s.io/*\"]"),
                                new ContainerdConfig.Entry(List.of("runtime_type"), "\"x\"")),
                        List.of("cdi.k8s.io/"));
        assertThat(out)
                .containsExactly(
                        new ContainerdConfig.Entry(List.of("runtime_type"), "\"x\""),
                        new ContainerdConfig.Entry(
                                List.of("container_annotations"),
                                "[\"cdi.k8s.io/*\", \"io.kubernetes.cri.*\"]"));
    }
}
