package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.node.cdi.CdiFixtures.VERSION;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
