package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.node.cdi.CdiFixtures.VERSION;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverDiscoveryTest {

    @TempDir Path host;

    private Path write(String path, String text) throws Exception {
        Path p = host.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    @Test
    void parsesAGlibcLdCacheInBothLayouts() throws Exception {
        Map<String, String> entries = new LinkedHashMap<>();
        entries.put("libcuda.so.1", "/opt/nv/lib/libcuda.so.1");
        entries.put("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6");
        for (boolean old : new boolean[] {false, true}) {
            assertThat(LdCache.parse(CdiFixtures.ldCache(entries, old), "c"))
                    .extracting(LdCache.Entry::soname, LdCache.Entry::path)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(
                                    "libcuda.so.1", "/opt/nv/lib/libcuda.so.1"),
                            org.assertj.core.groups.Tuple.tuple(
                                    "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"));
        }
        assertThat(LdCache.parse(CdiFixtures.ldCache(entries, false), "c"))
                .allSatisfy(e -> assertThat(e.lib64()).isTrue());
    }

    @Test
    void findsTheDriversLibrariesFromTheLdCacheAndTheLibraryDirs() throws Exception {
        String root = "/run/nvidia/driver";
        // a library folder only the ldcache names, and the usual one
        write(root + "/opt/nv/lib/libnvidia-ptxjitcompiler.so." + VERSION, "");
        write(root + "/usr/lib/x86_64-linux-gnu/libcuda.so." + VERSION, "");
        write(root + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + VERSION, "");
        write(root + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", ""); // soname link: no
        write(root + "/usr/lib/x86_64-linux-gnu/libcuda.so.535.1.1", ""); // other version: no
        write(root + "/usr/lib/x86_64-linux-gnu/libc.so.6", "");
        write(root + "/usr/bin/nvidia-smi", "");
        write(root + "/usr/bin/nvidia-persistenced", "");
        Map<String, String> cache = new LinkedHashMap<>();
        cache.put("libnvidia-ptxjitcompiler.so.1", "/opt/nv/lib/libnvidia-ptxjitcompiler.so.1");
        Files.write(write(root + "/etc/ld.so.cache", ""), CdiFixtures.ldCache(cache, false));
        write("/dev/nvidiactl", "c 195:255\n");
        write("/dev/nvidia0", "c 195:0\n");
        write("/dev/nvidia-uvm", "c 510:0\n");
        write("/proc/driver/nvidia-caps/mig-minors", "config 1\ngpu0/gi1/access 12\n");
        write(
                "/proc/devices",
                "Character devices:\n  1 mem\n195 nvidia\n236 nvidia-caps\n510 nvidia-uvm\n"
                        + "\nBlock devices:\n  7 loop\n259 nvidia-not-a-char\n");

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover(root, VERSION);

        assertThat(d.libraries())
                .containsExactly(
                        "/opt/nv/lib/libnvidia-ptxjitcompiler.so." + VERSION,
                        "/usr/lib/x86_64-linux-gnu/libcuda.so." + VERSION,
                        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + VERSION);
        assertThat(d.binaries())
                .containsExactly("/usr/bin/nvidia-smi", "/usr/bin/nvidia-persistenced");
        assertThat(d.hostPath("/usr/bin/nvidia-smi")).isEqualTo(root + "/usr/bin/nvidia-smi");
        assertThat(d.deviceNodes())
                .containsEntry(
                        "/dev/nvidia-uvm", CdiSpec.DeviceNode.charDevice("/dev/nvidia-uvm", 510, 0))
                .containsKeys("/dev/nvidiactl", "/dev/nvidia0");
        assertThat(d.migCapMinors()).containsEntry("gpu0/gi1/access", 12);
        assertThat(d.characterMajors())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("nvidia", 195, "nvidia-caps", 236, "nvidia-uvm", 510));
    }

    private void link(String path, String target) throws Exception {
        Path p = host.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        Files.createSymbolicLink(p, Path.of(target));
    }

    @Test
    void followsTheLdCachesSonameLinksAsDebiansPackagesLayThemOut() throws Exception {
        // Debian's libcuda1: the ldcache names /usr/lib/<triplet>/libcuda.so.1, a link through
        // /etc/alternatives (absolute, read in the driver root) to nvidia/current; a vendor
        // folder only such a link leads to proves the links are followed
        String root = "/run/nvidia/driver";
        String triplet = "/usr/lib/x86_64-linux-gnu";
        write(root + triplet + "/nvidia/current/libcuda.so." + VERSION, "");
        link(root + triplet + "/nvidia/current/libcuda.so.1", "libcuda.so." + VERSION);
        link(
                root + "/etc/alternatives/nvidia--libcuda.so.1",
                triplet + "/nvidia/current/libcuda.so.1");
        link(root + triplet + "/libcuda.so.1", "/etc/alternatives/nvidia--libcuda.so.1");
        write(root + "/opt/vendor/nv/libnvidia-ptxjitcompiler.so." + VERSION, "");
        link(
                root + "/opt/vendor/nv/libnvidia-ptxjitcompiler.so.1",
                "libnvidia-ptxjitcompiler.so." + VERSION);
        link(root + "/etc/alternatives/ptx", "../../opt/vendor/nv/libnvidia-ptxjitcompiler.so.1");
        link(root + triplet + "/libnvidia-ptxjitcompiler.so.1", "/etc/alternatives/ptx");
        Map<String, String> cache = new LinkedHashMap<>();
        cache.put("libcuda.so.1", triplet + "/libcuda.so.1");
        cache.put("libnvidia-ptxjitcompiler.so.1", triplet + "/libnvidia-ptxjitcompiler.so.1");
        Files.write(write(root + "/etc/ld.so.cache", ""), CdiFixtures.ldCache(cache, false));

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover(root, VERSION);

        assertThat(d.libraries())
                .containsExactly(
                        "/opt/vendor/nv/libnvidia-ptxjitcompiler.so." + VERSION,
                        triplet + "/nvidia/current/libcuda.so." + VERSION);
    }

    static final String TRIPLET = "/usr/lib/x86_64-linux-gnu";
    static final String CURRENT = TRIPLET + "/nvidia/current";

    /**
     * Debian's packages under {@code root} as {@code libcuda1}, {@code libnvidia-ml1}, {@code
     * libnvidia-ptxjitcompiler1}, {@code libnvidia-pkcs11-openssl3} and {@code nvidia-smi} lay them
     * out: the files in {@code nvidia/current} with their soname and development links, the triplet
     * folder's soname links through {@code /etc/alternatives}, merged {@code /usr} ({@code /lib} →
     * {@code usr/lib}), {@code /usr/bin/nvidia-smi} through the alternatives to {@code
     * /usr/lib/nvidia/current}; with the ldcache {@code ldconfig} writes for it (the names under
     * {@code /lib}) unless {@code ldCache} is false.
     */
    private void debianLayout(String root, boolean ldCache) throws Exception {
        link(root + "/lib", "usr/lib");
        Map<String, String> cache = new LinkedHashMap<>();
        for (String lib : List.of("libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler")) {
            write(root + CURRENT + "/" + lib + ".so." + VERSION, "");
            link(root + CURRENT + "/" + lib + ".so.1", lib + ".so." + VERSION);
            String alt = "/etc/alternatives/nvidia--" + lib + ".so.1-x86_64-linux-gnu";
            link(root + alt, CURRENT + "/" + lib + ".so.1");
            link(root + TRIPLET + "/" + lib + ".so.1", alt);
            cache.put(lib + ".so.1", "/lib/x86_64-linux-gnu/" + lib + ".so.1");
        }
        link(root + CURRENT + "/libcuda.so", "libcuda.so.1");
        link(root + CURRENT + "/libnvidia-ml.so", "libnvidia-ml.so.1");
        link(
                root + "/etc/alternatives/nvidia--libcuda.so-x86_64-linux-gnu",
                CURRENT + "/libcuda.so");
        link(
                root + TRIPLET + "/libcuda.so",
                "/etc/alternatives/nvidia--libcuda.so-x86_64-linux-gnu");
        cache.put("libcuda.so", "/lib/x86_64-linux-gnu/libcuda.so");
        // a library outside nvidia/current whose soname is its file name
        write(root + TRIPLET + "/libnvidia-pkcs11-openssl3.so." + VERSION, "");
        cache.put(
                "libnvidia-pkcs11-openssl3.so." + VERSION,
                "/lib/x86_64-linux-gnu/libnvidia-pkcs11-openssl3.so." + VERSION);
        // the libraries of another driver (Debian's nvidia/current-open of another version)
        write(root + TRIPLET + "/nvidia/current-open/libcuda.so.1.2.3", "");
        cache.put("libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6");
        write(root + TRIPLET + "/libc.so.6", "");
        write(root + "/usr/lib/nvidia/current/nvidia-smi", "");
        link(root + "/etc/alternatives/nvidia--nvidia-smi", "/usr/lib/nvidia/current/nvidia-smi");
        link(root + "/usr/bin/nvidia-smi", "/etc/alternatives/nvidia--nvidia-smi");
        if (ldCache) {
            Files.write(write(root + "/etc/ld.so.cache", ""), CdiFixtures.ldCache(cache, false));
        }
    }

    private static final List<String> DEBIAN_LIBRARIES =
            List.of(
                    CURRENT + "/libcuda.so." + VERSION,
                    CURRENT + "/libnvidia-ml.so." + VERSION,
                    CURRENT + "/libnvidia-ptxjitcompiler.so." + VERSION,
                    TRIPLET + "/libnvidia-pkcs11-openssl3.so." + VERSION);

    private static final Map<String, String> DEBIAN_SONAME_LINKS =
            Map.of(
                    CURRENT + "/libcuda.so.1", "libcuda.so." + VERSION,
                    CURRENT + "/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION,
                    CURRENT + "/libnvidia-ptxjitcompiler.so.1",
                            "libnvidia-ptxjitcompiler.so." + VERSION);

    @Test
    void debiansPackagesThroughTheLdCacheAndTheAlternatives() throws Exception {
        debianLayout("", true);

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);

        // the real files, each once, though the ldcache names links under /lib
        assertThat(d.libraries()).containsExactlyInAnyOrderElementsOf(DEBIAN_LIBRARIES);
        // the soname links next to the mounted files; no development link (libcuda.so,
        // libnvidia-ml.so), no link for a library whose soname is its file name
        assertThat(d.sonameLinks()).containsExactlyInAnyOrderEntriesOf(DEBIAN_SONAME_LINKS);
        // nvidia-smi where a container looks for it, mounted from the alternatives' file
        assertThat(d.binaries()).containsExactly("/usr/bin/nvidia-smi");
        assertThat(d.hostPath("/usr/bin/nvidia-smi"))
                .isEqualTo("/usr/lib/nvidia/current/nvidia-smi");
        assertThat(d.hostPath(CURRENT + "/libcuda.so." + VERSION))
                .isEqualTo(CURRENT + "/libcuda.so." + VERSION);
    }

    @Test
    void debiansPackagesWithoutAnLdCacheAreFoundInNvidiaCurrent() throws Exception {
        // nvidia-ctk's search paths where the ldcache lacks them: Debian's nvidia/current
        debianLayout("", false);

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);

        assertThat(d.libraries()).containsExactlyInAnyOrderElementsOf(DEBIAN_LIBRARIES);
        assertThat(d.sonameLinks()).containsExactlyInAnyOrderEntriesOf(DEBIAN_SONAME_LINKS);
    }

    @Test
    void debiansPackagesInADriverRootResolveInsideIt() throws Exception {
        // the same packages under a driver root: every absolute link (/etc/alternatives/...) is
        // read in the driver root, so the paths are the driver root's, without it
        String root = "/run/nvidia/driver";
        debianLayout(root, true);

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover(root, VERSION);

        assertThat(d.libraries()).containsExactlyInAnyOrderElementsOf(DEBIAN_LIBRARIES);
        assertThat(d.sonameLinks()).containsExactlyInAnyOrderEntriesOf(DEBIAN_SONAME_LINKS);
        assertThat(d.hostPath("/usr/bin/nvidia-smi"))
                .isEqualTo(root + "/usr/lib/nvidia/current/nvidia-smi");
        assertThat(d.hostPath(CURRENT + "/libcuda.so." + VERSION))
                .isEqualTo(root + CURRENT + "/libcuda.so." + VERSION);
    }

    @Test
    void theRunInstallersLayoutWithoutAnLdCache() throws Exception {
        // the .run installer: files and soname links side by side in the triplet folder
        write(TRIPLET + "/libcuda.so." + VERSION, "");
        link(TRIPLET + "/libcuda.so.1", "libcuda.so." + VERSION);
        link(TRIPLET + "/libcuda.so", "libcuda.so.1");
        write(TRIPLET + "/libnvidia-ml.so." + VERSION, "");
        link(TRIPLET + "/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION);
        write(TRIPLET + "/libnvidia-gpucomp.so." + VERSION, ""); // no soname link
        link(TRIPLET + "/libnvidia-ml.so.2", "libnvidia-ml.so.1.2.3"); // elsewhere: no
        write(TRIPLET + "/libnvidia-ml.so.1.2.3", "");
        write("/usr/bin/nvidia-smi", "");

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);

        assertThat(d.libraries())
                .containsExactly(
                        TRIPLET + "/libcuda.so." + VERSION,
                        TRIPLET + "/libnvidia-gpucomp.so." + VERSION,
                        TRIPLET + "/libnvidia-ml.so." + VERSION);
        assertThat(d.sonameLinks())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                TRIPLET + "/libcuda.so.1", "libcuda.so." + VERSION,
                                TRIPLET + "/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION));
        assertThat(d.realFiles()).isEmpty();
    }

    @Test
    void rhelsLib64ThroughItsLdCache() throws Exception {
        // RHEL's packages: /usr/lib64, the ldcache naming the soname links there; /lib64 is a link
        write("/usr/lib64/libcuda.so." + VERSION, "");
        link("/usr/lib64/libcuda.so.1", "libcuda.so." + VERSION);
        write("/usr/lib64/libnvidia-ml.so." + VERSION, "");
        link("/usr/lib64/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION);
        link("/lib64", "usr/lib64");
        Map<String, String> cache = new LinkedHashMap<>();
        cache.put("libcuda.so.1", "/lib64/libcuda.so.1");
        cache.put("libnvidia-ml.so.1", "/usr/lib64/libnvidia-ml.so.1");
        Files.write(write("/etc/ld.so.cache", ""), CdiFixtures.ldCache(cache, false));

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);

        assertThat(d.libraries())
                .containsExactly(
                        "/usr/lib64/libcuda.so." + VERSION,
                        "/usr/lib64/libnvidia-ml.so." + VERSION);
        assertThat(d.sonameLinks())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "/usr/lib64/libcuda.so.1", "libcuda.so." + VERSION,
                                "/usr/lib64/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION));
    }

    @Test
    void aDriverContainersRootReachedThroughALinkIsResolvedInTheHostRoot() throws Exception {
        // the driver container's root: the .run layout, an absolute soname link (read in the
        // driver root) and the root itself an absolute link in the host's root
        String image = "/var/lib/driver/image";
        write(image + TRIPLET + "/libcuda.so." + VERSION, "");
        link(image + TRIPLET + "/libcuda.so.1", TRIPLET + "/libcuda.so." + VERSION);
        write(image + "/usr/bin/nvidia-smi", "");
        link("/run/nvidia/driver", image);

        DriverFiles d =
                new DriverDiscovery(new HostFs(host)).discover("/run/nvidia/driver", VERSION);

        assertThat(d.libraries()).containsExactly(TRIPLET + "/libcuda.so." + VERSION);
        assertThat(d.sonameLinks())
                .containsExactlyEntriesOf(
                        Map.of(TRIPLET + "/libcuda.so.1", "libcuda.so." + VERSION));
        // the spec names the root as given: the runtime resolves it on the host
        assertThat(d.hostPath("/usr/bin/nvidia-smi"))
                .isEqualTo("/run/nvidia/driver/usr/bin/nvidia-smi");
    }

    @Test
    void noLinkLeadsOutOfTheDriverRoot() throws Exception {
        // files the host has outside the driver root, and links in the driver root that would
        // reach them if read on the host: absolute, relative with too many "..", a folder link
        String root = "/run/nvidia/driver";
        write("/opt/host/libcuda.so." + VERSION, "");
        write("/opt/host/libnvidia-ml.so." + VERSION, "");
        write("/opt/host/nvidia-smi", "");
        link(root + TRIPLET + "/libcuda.so.1", "/opt/host/libcuda.so." + VERSION);
        link(
                root + TRIPLET + "/libnvidia-ml.so.1",
                "../../../../../../../opt/host/libnvidia-ml.so.1");
        link(
                root + TRIPLET + "/libnvidia-ml.so." + VERSION,
                "../../../../../../../opt/host/libnvidia-ml.so." + VERSION);
        link(root + TRIPLET + "/nvidia", "/opt/host");
        link(root + "/usr/bin/nvidia-smi", "/opt/host/nvidia-smi");
        Map<String, String> cache = new LinkedHashMap<>();
        cache.put("libcuda.so.1", TRIPLET + "/libcuda.so.1");
        cache.put("libnvidia-ml.so.1", TRIPLET + "/libnvidia-ml.so.1");
        Files.write(write(root + "/etc/ld.so.cache", ""), CdiFixtures.ldCache(cache, false));
        // a link loop ends the resolution, not the discovery
        link(root + TRIPLET + "/libloop.so." + VERSION, "libloop2.so." + VERSION);
        link(root + TRIPLET + "/libloop2.so." + VERSION, "libloop.so." + VERSION);

        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover(root, VERSION);

        assertThat(d.libraries()).isEmpty();
        assertThat(d.sonameLinks()).isEmpty();
        assertThat(d.binaries()).isEmpty();

        // the same links resolve once the driver root has the files
        write(root + "/opt/host/libcuda.so." + VERSION, "");
        write(root + "/opt/host/libnvidia-ml.so." + VERSION, "");
        d = new DriverDiscovery(new HostFs(host)).discover(root, VERSION);
        assertThat(d.libraries())
                .containsExactly(
                        "/opt/host/libcuda.so." + VERSION, "/opt/host/libnvidia-ml.so." + VERSION);
        assertThat(d.hostPath(d.libraries().getFirst()))
                .isEqualTo(root + "/opt/host/libcuda.so." + VERSION);
    }

    @Test
    void aHostDriverAtRootHasHostPathsEqualToContainerPaths() throws Exception {
        write("/usr/lib64/libcuda.so." + VERSION, "");
        DriverFiles d = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);
        assertThat(d.libraries()).containsExactly("/usr/lib64/libcuda.so." + VERSION);
        assertThat(d.hostPath(d.libraries().getFirst()))
                .isEqualTo("/usr/lib64/libcuda.so." + VERSION);
    }

    @Test
    void aBrokenLdCacheIsAnErrorNamingIt() throws Exception {
        write("/etc/ld.so.cache", "not a cache");
        assertThatThrownBy(() -> new DriverDiscovery(new HostFs(host)).discover("/", VERSION))
                .isInstanceOf(CdiException.class)
                .hasMessageContaining("/etc/ld.so.cache: not a glibc ld.so.cache");
    }
}
