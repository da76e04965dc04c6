package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Discovery on this machine's root against NVIDIA's real files from Debian's packages ({@code
 * .ci/run} installs them from {@code contrib non-free}): the libraries in {@code nvidia/current},
 * reached through the ldcache's links and {@code /etc/alternatives}, with their soname links, the
 * tools, the ICD files and the GSP firmware, each in the spec generated for {@code /} with
 * simulated GPUs. The expected files come from {@code dpkg -L}, filtered by kind, not from a list
 * written here. The driver version is {@code libnvidia-ml1}'s ({@code dpkg-query}, cut at the first
 * {@code -}). Each test (each package of a parameterized one) skips with a message where its
 * package is not installed.
 */
class RealDriverPackagesTest {

    static final String NVML = "libnvidia-ml1";
    static final String CUDA = "libcuda1";
    static final String SMI = "nvidia-smi";

    /** The packages of the driver's libraries that may be installed with them. */
    static final List<String> LIBRARY_PACKAGES =
            List.of(
                    NVML,
                    CUDA,
                    "libnvidia-ptxjitcompiler1",
                    "libnvidia-pkcs11-openssl3",
                    "libnvidia-nvvm4",
                    "libnvidia-eglcore",
                    "libnvidia-glcore",
                    "libnvidia-glvkspirv",
                    "libnvidia-rtcore",
                    "libegl-nvidia0",
                    "libglx-nvidia0",
                    "nvidia-opencl-icd",
                    "nvidia-vdpau-driver");

    static String version;
    static DriverFiles found;

    /** The spec's mounts for {@code /} with one simulated GPU. */
    static List<CdiSpec.Mount> mounts;

    @BeforeAll
    static void discoverOnThisMachine() throws Exception {
        Optional<String> v = installedVersion(NVML);
        if (v.isEmpty()) {
            return;
        }
        version = v.get();
        found = new DriverDiscovery(new HostFs(Path.of("/"))).discover("/", version);
        Path sim = Files.createTempDirectory("real-driver-gpus");
        mounts =
                CdiSpecGenerator.gpuSpec(CdiFixtures.gpus("t4-x1", sim), found, CdiFixtures.HOOK)
                        .containerEdits()
                        .mounts();
    }

    /** The spec's mount of a host file, by its host path. */
    static Optional<CdiSpec.Mount> mountOf(String hostPath) {
        return mounts.stream().filter(m -> m.hostPath().equals(hostPath)).findFirst();
    }

    private static void assumeInstalled(String pkg) throws Exception {
        assumeTrue(
                version != null,
                "Debian's "
                        + NVML
                        + " is not installed (.ci/run installs it from contrib non-free)");
        assumeTrue(
                installedVersion(pkg).filter(version::equals).isPresent(),
                "Debian's " + pkg + " " + version + " is not installed");
    }

    @Test
    void findsEveryVersionedLibraryOfTheInstalledPackagesWithItsSonameLinks() throws Exception {
        assumeInstalled(NVML);
        List<String> libraries = new ArrayList<>();
        Map<String, String> links = new LinkedHashMap<>();
        for (String pkg : LIBRARY_PACKAGES) {
            if (installedVersion(pkg).filter(version::equals).isPresent()) {
                Expected e = expected(pkg);
                libraries.addAll(e.libraries());
                links.putAll(e.sonameLinks());
            }
        }
        assertThat(libraries).isNotEmpty();

        assertThat(found.libraries()).containsAll(libraries);
        assertThat(found.sonameLinks()).containsAllEntriesOf(links);
        // the spec mounts them from this root as they are
        for (String lib : libraries) {
            assertThat(found.hostPath(lib)).isEqualTo(lib);
            assertThat(mountOf(lib)).map(CdiSpec.Mount::containerPath).contains(lib);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {SMI, "nvidia-cuda-mps"})
    void theSpecMountsEachToolThePackageInstalls(String pkg) throws Exception {
        assumeInstalled(pkg);
        // the package's programs named as the driver's tools, each where it is (nvidia-smi's is
        // /usr/lib/nvidia/current/nvidia-smi, /usr/bin's name its alternatives link)
        List<String> tools =
                files(pkg).stream()
                        .filter(f -> DriverDiscovery.BINARIES.contains(name(f)))
                        .filter(f -> Files.isRegularFile(Path.of(f)))
                        .filter(f -> Files.isExecutable(Path.of(f)))
                        .filter(f -> !Files.isSymbolicLink(Path.of(f)))
                        .toList();
        assertThat(tools).as("dpkg -L %s", pkg).isNotEmpty();
        for (String tool : tools) {
            assertThat(mountOf(tool))
                    .as(tool)
                    .hasValueSatisfying(
                            m -> {
                                assertThat(found.binaries()).contains(m.containerPath());
                                assertThat(name(m.containerPath())).isEqualTo(name(tool));
                            });
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nvidia-egl-common", "nvidia-vulkan-common", "nvidia-opencl-common"})
    void theSpecMountsEachIcdFileThePackageInstalls(String pkg) throws Exception {
        assumeInstalled(pkg);
        List<String> icds =
                files(pkg).stream()
                        .filter(f -> f.endsWith(".json") || f.endsWith(".icd"))
                        .filter(f -> Files.isRegularFile(Path.of(f)))
                        .toList();
        assertThat(icds).as("dpkg -L %s", pkg).isNotEmpty();
        for (String icd : icds) {
            // Vulkan's at /etc/vulkan/..., as nvidia-ctk mounts them; the others where they are
            String inContainer =
                    icd.startsWith("/usr/share/vulkan/")
                            ? "/etc/" + icd.substring("/usr/share/".length())
                            : icd;
            assertThat(mountOf(icd))
                    .as(icd)
                    .map(CdiSpec.Mount::containerPath)
                    .contains(inContainer);
            assertThat(found.graphics()).contains(inContainer);
        }
    }

    @Test
    void theSpecMountsTheGspFirmwareOfTheDriverVersion() throws Exception {
        assumeInstalled(FIRMWARE);
        List<String> firmware =
                files(FIRMWARE).stream()
                        .filter(f -> f.startsWith("/lib/firmware/nvidia/" + version + "/"))
                        .filter(f -> f.endsWith(".bin"))
                        .filter(f -> Files.isRegularFile(Path.of(f)))
                        .toList();
        assertThat(firmware).as("dpkg -L %s", FIRMWARE).isNotEmpty();
        assertThat(found.firmware()).containsExactlyInAnyOrderElementsOf(firmware);
        // mounted from the real file: on a merged /usr, /lib/firmware is /usr/lib/firmware
        for (String f : firmware) {
            assertThat(mountOf(Path.of(f).toRealPath().toString()))
                    .as(f)
                    .map(CdiSpec.Mount::containerPath)
                    .contains(f);
        }
    }

    @Test
    void libnvidiaMlIsFoundInNvidiaCurrentWithItsSoname1Link() throws Exception {
        assumeInstalled(NVML);
        Expected e = expected(NVML);
        String lib =
                e.libraries().stream()
                        .filter(l -> l.endsWith("/libnvidia-ml.so." + version))
                        .findFirst()
                        .orElseThrow();
        String dir = lib.substring(0, lib.lastIndexOf('/'));

        assertThat(found.libraries()).contains(lib);
        assertThat(found.sonameLinks())
                .containsEntry(dir + "/libnvidia-ml.so.1", "libnvidia-ml.so." + version);
    }

    @Test
    void libcudaIsMountedWithTheHookThatCreatesItsSoname1Link() throws Exception {
        assumeInstalled(CUDA);
        Expected e = expected(CUDA);
        String lib =
                e.libraries().stream()
                        .filter(l -> l.endsWith("/libcuda.so." + version))
                        .findFirst()
                        .orElseThrow();
        String dir = lib.substring(0, lib.lastIndexOf('/'));
        assertThat(found.libraries()).contains(lib);
        assertThat(found.sonameLinks())
                .containsEntry(dir + "/libcuda.so.1", "libcuda.so." + version);

        CdiSpec.ContainerEdits edits =
                CdiSpecGenerator.gpuSpec(List.of(), found, CdiFixtures.HOOK).containerEdits();
        assertThat(edits.mounts())
                .extracting(CdiSpec.Mount::hostPath, CdiSpec.Mount::containerPath)
                .contains(org.assertj.core.groups.Tuple.tuple(lib, lib));
        List<String> createSymlinks =
                edits.hooks().stream()
                        .map(CdiSpec.Hook::args)
                        .filter(a -> a.get(1).equals("create-symlinks"))
                        .findFirst()
                        .orElseThrow();
        assertThat(createSymlinks)
                .containsSubsequence(
                        "--link", "libcuda.so." + version + "::" + dir + "/libcuda.so.1")
                .containsSubsequence("--link", "libcuda.so.1::" + dir + "/libcuda.so");
    }

    @Test
    void nvidiaSmiIsMountedFromTheFileItsAlternativesLeadTo() throws Exception {
        assumeInstalled(SMI);
        // the package installs the tool elsewhere; update-alternatives links /usr/bin/nvidia-smi
        String file =
                run("dpkg", "-L", SMI)
                        .lines()
                        .filter(l -> l.endsWith("/nvidia-smi"))
                        .filter(l -> Files.isRegularFile(Path.of(l)))
                        .findFirst()
                        .orElseThrow();

        assertThat(found.binaries()).contains("/usr/bin/nvidia-smi");
        assertThat(found.hostPath("/usr/bin/nvidia-smi")).isEqualTo(file);
    }

    static final String FIRMWARE = "firmware-nvidia-gsp";

    /** The files (not folders) {@code dpkg -L} lists for the package. */
    static List<String> files(String pkg) throws Exception {
        return run("dpkg", "-L", pkg).lines().filter(l -> !Files.isDirectory(Path.of(l))).toList();
    }

    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** What a package puts in the spec, from {@code dpkg -L}. */
    record Expected(List<String> libraries, Map<String, String> sonameLinks) {}

    /**
     * The package's files {@code lib*.so.<version>} (real files) and its links next to them that
     * lead to them, named {@code <library>.so.<something>} (not the {@code .so} development link).
     */
    static Expected expected(String pkg) throws Exception {
        List<String> listed = run("dpkg", "-L", pkg).lines().toList();
        String suffix = ".so." + version;
        List<String> libraries =
                listed.stream()
                        .filter(l -> Path.of(l).getFileName() != null)
                        .filter(l -> Path.of(l).getFileName().toString().startsWith("lib"))
                        .filter(l -> l.endsWith(suffix))
                        .filter(
                                l ->
                                        Files.isRegularFile(Path.of(l))
                                                && !Files.isSymbolicLink(Path.of(l)))
                        .toList();
        Map<String, String> links = new LinkedHashMap<>();
        for (String lib : libraries) {
            Path p = Path.of(lib);
            String name = p.getFileName().toString();
            String stem = name.substring(0, name.length() - suffix.length()) + ".so.";
            for (String l : listed) {
                Path link = Path.of(l);
                if (link.getParent() != null
                        && link.getParent().equals(p.getParent())
                        && link.getFileName().toString().startsWith(stem)
                        && Files.isSymbolicLink(link)
                        && link.toRealPath().equals(p.toRealPath())) {
                    links.put(l, name);
                }
            }
        }
        assertThat(libraries).as("dpkg -L %s:\n%s", pkg, String.join("\n", listed)).isNotEmpty();
        return new Expected(libraries, links);
    }

    /** The driver version of an installed package: its Debian version up to the first '-'. */
    static Optional<String> installedVersion(String pkg) throws InterruptedException {
        try {
            String out = run("dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", pkg);
            String[] f = out.strip().split(" ");
            if (f.length != 2 || !f[0].equals("installed")) {
                return Optional.empty();
            }
            int dash = f[1].indexOf('-');
            return Optional.of(dash < 0 ? f[1] : f[1].substring(0, dash));
        } catch (IOException e) {
            return Optional.empty(); // no dpkg here
        }
    }

    /** The command's standard output, empty when it fails. */
    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not finish");
        }
        return p.exitValue() == 0 ? out : "";
    }
}
