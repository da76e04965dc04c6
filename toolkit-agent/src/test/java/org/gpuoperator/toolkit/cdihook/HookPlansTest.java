package org.gpuoperator.toolkit.cdihook;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HookPlansTest {

    /** A container with these links and these other files. */
    static HookPlans.View view(Map<String, String> links, Set<String> files) {
        return new HookPlans.View() {
            @Override
            public Optional<String> readlink(String p) {
                return Optional.ofNullable(links.get(p));
            }

            @Override
            public boolean exists(String p) {
                return links.containsKey(p) || files.contains(p);
            }
        };
    }

    @Test
    void linksAreMadeKeptOrReplacedAndTheirFoldersResolvedInTheRoot() {
        HookPlans.View v =
                view(
                        Map.of(
                                "/lib", "usr/lib",
                                "/usr/lib/libcuda.so.1", "libcuda.so.535.1",
                                "/usr/lib/libnvidia-ml.so.1", "libnvidia-ml.so.470.1"),
                        Set.of("/usr/lib/libcuda.so"));

        assertThat(
                        HookPlans.links(
                                List.of(
                                        new HookCommand.Link(
                                                "libcuda.so.535.1", "/lib/libcuda.so.1"),
                                        new HookCommand.Link(
                                                "libnvidia-ml.so.535.1",
                                                "/usr/lib/libnvidia-ml.so.1"),
                                        new HookCommand.Link("libcuda.so.1", "/usr/lib/libcuda.so"),
                                        new HookCommand.Link(
                                                "libnvidia-ptxjitcompiler.so.535.1",
                                                "/usr/lib/new/libnvidia-ptxjitcompiler.so.1")),
                                v))
                .containsExactly(
                        new HookPlans.LinkStep(
                                "/usr/lib/libcuda.so.1",
                                "libcuda.so.535.1",
                                HookPlans.LinkAction.KEEP),
                        new HookPlans.LinkStep(
                                "/usr/lib/libnvidia-ml.so.1",
                                "libnvidia-ml.so.535.1",
                                HookPlans.LinkAction.REPLACE),
                        new HookPlans.LinkStep(
                                "/usr/lib/libcuda.so",
                                "libcuda.so.1",
                                HookPlans.LinkAction.REPLACE),
                        new HookPlans.LinkStep(
                                "/usr/lib/new/libnvidia-ptxjitcompiler.so.1",
                                "libnvidia-ptxjitcompiler.so.535.1",
                                HookPlans.LinkAction.CREATE));
    }

    @Test
    void theLdconfigConfigurationAndCommand() {
        assertThat(
                        HookPlans.ldConf(
                                List.of(
                                        "/usr/lib/x86_64-linux-gnu",
                                        "/usr/lib/nvidia",
                                        "/usr/lib/nvidia")))
                .isEqualTo("/usr/lib/x86_64-linux-gnu\n/usr/lib/nvidia\n");
        assertThat(HookPlans.ldConf(List.of())).isEmpty();
        assertThat(HookPlans.LDCACHE_CONF).isEqualTo("/etc/ld.so.conf.d/00-nvcr-cdi-hook.conf");
        // compat first: ld.so.conf includes ld.so.conf.d/*.conf in name order
        assertThat(List.of(HookPlans.LDCACHE_CONF, HookPlans.COMPAT_CONF).stream().sorted())
                .containsExactly(HookPlans.COMPAT_CONF, HookPlans.LDCACHE_CONF);

        assertThat(HookPlans.ldconfig("/sbin/ldconfig", p -> p.equals("/sbin/ldconfig.real")))
                .isEqualTo("/sbin/ldconfig.real");
        assertThat(HookPlans.ldconfig("/sbin/ldconfig", p -> false)).isEqualTo("/sbin/ldconfig");
        assertThat(HookPlans.ldconfigCommand("/sbin/ldconfig", "/b/rootfs"))
                .containsExactly(
                        "/sbin/ldconfig",
                        "-r",
                        "/b/rootfs",
                        "-f",
                        "/etc/ld.so.conf",
                        "-C",
                        "/etc/ld.so.cache");
    }

    @Test
    void cudaCompatOnlyForOneCompatLibcudaOfANewerMajor() {
        List<String> cuda125 =
                List.of(
                        "libcuda.so",
                        "libcuda.so.1",
                        "libcuda.so.555.42.06",
                        "libnvidia-nvvm.so.4");
        assertThat(HookPlans.cudaCompat("535.309.01", cuda125)).contains("/usr/local/cuda/compat");
        // numbers, not text: "1000" is newer than "999"
        assertThat(HookPlans.cudaCompat("999.1", List.of("libcuda.so.1000.2"))).isPresent();
        assertThat(HookPlans.cudaCompat("555.1", cuda125)).isEmpty();
        assertThat(HookPlans.cudaCompat("560.35.03", cuda125)).isEmpty();
        assertThat(HookPlans.cudaCompat("535.309.01", List.of("libcuda.so.1"))).isEmpty();
        assertThat(
                        HookPlans.cudaCompat(
                                "535.309.01", List.of("libcuda.so.550.1", "libcuda.so.555.1")))
                .isEmpty();
        assertThat(HookPlans.cudaCompat("", cuda125)).isEmpty();
    }

    @Test
    void paramsGetModifyDeviceFilesZeroOnlyWhenItIsOne() {
        String on = "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\nDeviceFileUID: 0\n";
        assertThat(HookPlans.params(on))
                .contains("ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 0\nDeviceFileUID: 0\n");
        assertThat(HookPlans.params("ModifyDeviceFiles: 0\n")).isEmpty();
        assertThat(HookPlans.params("DeviceFileUID: 0\n")).isEmpty();
    }
}
