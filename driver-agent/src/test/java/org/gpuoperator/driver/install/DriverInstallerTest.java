package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.install.DriverInstaller.InstalledDriver;
import org.gpuoperator.driver.testing.FakeNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverInstallerTest {

    static final String KERNEL = "6.8.0-45-generic";

    @TempDir Path tmp;

    private DriverInstaller installer(FakeNode node, boolean peermem) {
        NvidiaProcFs proc = new NvidiaProcFs(node.host);
        Persistenced persistenced = new Persistenced(node.commands, node.host, node.pidFile);
        DriverUnloader unloader =
                new DriverUnloader(node.commands, proc, new GpuHolders(node.host), persistenced);
        return new DriverInstaller(
                node.config(peermem), node.commands, proc, persistenced, unloader, node.log);
    }

    private static List<String> insmodFiles(FakeNode node) {
        return node.commands.callsOf("insmod").stream()
                .map(c -> Path.of(c.get(1)).getFileName().toString())
                .toList();
    }

    @Test
    void precompiledModulesForTheRunningKernelAreLoadedWithoutABuild() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        InstalledDriver d = installer(node, false).install();

        assertThat(d.moduleSource()).isEqualTo("precompiled");
        assertThat(d.kernel()).isEqualTo(KERNEL);
        assertThat(node.commands.callsOf("make")).isEmpty();
        assertThat(node.commands.callsOf("insmod"))
                .allSatisfy(
                        c ->
                                assertThat(c.get(1))
                                        .startsWith(
                                                node.pkg
                                                        .resolve("precompiled/" + KERNEL)
                                                        .toString()));
    }

    @Test
    void precompiledModulesInTheImagesLibModulesCount() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(
                node.install.resolve("lib/modules/" + KERNEL + "/kernel/drivers/video"), KERNEL);

        assertThat(installer(node, false).install().moduleSource()).isEqualTo("precompiled");
        assertThat(node.commands.callsOf("make")).isEmpty();
    }

    @Test
    void precompiledModulesForAnotherKernelAreIgnoredAndTheModulesAreBuiltWithTheHostsHeaders()
            throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), "6.8.0-40-generic");
        Path headers = node.headers();

        InstalledDriver d = installer(node, false).install();

        assertThat(d.moduleSource()).isEqualTo("built");
        assertThat(node.commands.callsOf("make"))
                .containsExactly(
                        List.of(
                                "make",
                                "-C",
                                node.pkg.resolve("kernel").toString(),
                                "-j2",
                                "SYSSRC=" + headers,
                                "SYSOUT=" + headers,
                                "modules"));
        assertThat(insmodFiles(node))
                .containsExactly("nvidia.ko", "nvidia-uvm.ko", "nvidia-modeset.ko");
        assertThat(node.commands.callsOf("insmod").getFirst().get(1))
                .startsWith(node.pkg.resolve("kernel").toString());
    }

    @Test
    void headersAreFoundThroughTheLibModulesBuildLinkReRootedUnderTheHostRoot() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        Path real = node.root.resolve("usr/src/linux-headers-" + KERNEL + "-real");
        Files.createDirectories(real);
        Path link = node.root.resolve("lib/modules/" + KERNEL + "/build");
        Files.createDirectories(link.getParent());
        // An absolute link as the host has it: it must resolve under the host root, not the agent's
        // /.
        Files.createSymbolicLink(link, Path.of("/usr/src/linux-headers-" + KERNEL + "-real"));
        node.commands.on(
                List.of("make"),
                argv -> {
                    node.modules(node.pkg.resolve("kernel"), KERNEL);
                    return org.gpuoperator.driver.host.CommandResult.ok(argv, "");
                });

        installer(node, false).install();

        assertThat(node.commands.callsOf("make").getFirst()).contains("SYSSRC=" + real);
    }

    @Test
    void modulesLoadInDependencyOrderThenDevicesPersistencedAndTheDriverRoot() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        installer(node, true).install();

        assertThat(insmodFiles(node))
                .containsExactly(
                        "nvidia.ko", "nvidia-uvm.ko", "nvidia-modeset.ko", "nvidia-peermem.ko");
        List<String> programs =
                node.commands.programs().stream().filter(p -> !p.equals("modinfo")).toList();
        assertThat(programs)
                .containsExactly(
                        "uname",
                        "insmod",
                        "insmod",
                        "insmod",
                        "modprobe",
                        "insmod",
                        "mknod",
                        "mknod",
                        "mknod",
                        "mknod",
                        "mknod",
                        "mknod",
                        "nvidia-persistenced",
                        "mountpoint",
                        "mount");
        assertThat(node.commands.callsOf("modprobe").getFirst())
                .containsExactly("modprobe", "-d", node.root.toString(), "ib_core");
        assertThat(node.commands.callsOf("mknod"))
                .extracting(
                        c ->
                                node.host.hostPathOf(Path.of(c.get(3)))
                                        + " "
                                        + c.get(5)
                                        + ":"
                                        + c.get(6))
                .containsExactly(
                        "/dev/nvidiactl 195:255",
                        "/dev/nvidia0 195:0",
                        "/dev/nvidia1 195:1",
                        "/dev/nvidia-uvm 509:0",
                        "/dev/nvidia-uvm-tools 509:1",
                        "/dev/nvidia-modeset 195:254");
        assertThat(node.commands.callsOf("mount").getFirst())
                .containsExactly(
                        "mount", "--rbind", node.install.toString(), node.driverRootDir.toString());
    }

    @Test
    void aSecondRunOnAReadyNodeOnlyLooks() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        DriverInstaller installer = installer(node, false);
        installer.install();
        node.commands.on(
                List.of("mountpoint"),
                argv -> org.gpuoperator.driver.host.CommandResult.ok(argv, ""));
        node.commands.clearCalls();

        InstalledDriver again = installer.install();

        assertThat(again.moduleSource()).isEqualTo("already-loaded");
        assertThat(node.commands.programs()).containsExactly("uname", "mountpoint");
    }

    @Test
    void modulesBuiltForAnotherKernelAreCleanedAndRebuilt() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("kernel"), "6.8.0-40-generic");
        node.headers();

        installer(node, false).install();

        assertThat(node.commands.callsOf("make"))
                .extracting(List::getLast)
                .containsExactly("clean", "modules");
        assertThat(node.log())
                .contains(
                        "event=kernel-mismatch",
                        "modules-built-for=6.8.0-40-generic",
                        "running-kernel=" + KERNEL);
        assertThat(FakeNode.read(node.pkg.resolve("kernel/nvidia.ko")))
                .startsWith("vermagic=" + KERNEL);
    }

    static final String OTHER = "6.1.0-57-amd64";

    /**
     * Debian's headers for {@code kernel}: a flavour tree and a common tree, linked as Debian does.
     */
    private static void debianHeaders(FakeNode node, String kernel) throws Exception {
        String flavour = "/usr/src/linux-headers-" + kernel;
        String common = "/usr/src/linux-headers-" + kernel.replace("-amd64", "-common");
        FakeNode.write(
                node.host.path(flavour).resolve("Makefile"), "include " + common + "/Makefile\n");
        FakeNode.write(node.host.path(common).resolve("Makefile"), "# kernel\n");
        Path modules = node.host.path("/lib/modules/" + kernel);
        Files.createDirectories(modules);
        Files.createSymbolicLink(modules.resolve("build"), Path.of(flavour));
        Files.createSymbolicLink(modules.resolve("source"), Path.of(common));
    }

    @Test
    void buildModulesBuildsForAnInstalledKernelThatIsNotTheRunningOne() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        debianHeaders(node, OTHER);

        ModulePlan plan =
                installer(node, false).buildModules(OTHER, Optional.empty(), Optional.empty());

        Path src = node.pkg.resolve("kernel");
        assertThat(plan).isInstanceOf(ModulePlan.Build.class);
        assertThat(node.commands.calls())
                .containsExactly(
                        List.of(
                                "make",
                                "-C",
                                src.toString(),
                                "-j2",
                                "SYSSRC="
                                        + node.host.path("/usr/src/linux-headers-6.1.0-57-common"),
                                "SYSOUT=" + node.host.path("/usr/src/linux-headers-" + OTHER),
                                "modules"),
                        List.of("modinfo", "-F", "vermagic", src.resolve("nvidia.ko").toString()));
        assertThat(FakeNode.read(src.resolve("nvidia.ko"))).startsWith("vermagic=" + OTHER + " ");
        assertThat(node.commands.programs()).doesNotContain("uname", "insmod");
    }

    @Test
    void buildModulesWithoutHeadersForThatKernelNamesThePackageToInstall() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.headers(); // the running kernel's do not count

        assertThatThrownBy(
                        () ->
                                installer(node, false)
                                        .buildModules(OTHER, Optional.empty(), Optional.empty()))
                .isInstanceOf(DriverStepException.class)
                .hasMessageContaining("no kernel headers")
                .hasMessageContaining("/usr/src/linux-headers-" + OTHER)
                .hasMessageContaining("install linux-headers-" + OTHER);
        assertThat(node.commands.callsOf("make")).isEmpty();
    }

    @Test
    void buildModulesRejectsABuildWhoseVermagicNamesAnotherKernel() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        Path src = tmp.resolve("dkms/nvidia-current-535.309.01");
        FakeNode.write(src.resolve("Makefile"), "all:\n");
        // headers that are the running kernel's, under another name
        Path headers = tmp.resolve("headers-of-" + OTHER);
        Files.createDirectories(headers);
        node.commands.on(
                List.of("make"),
                argv -> {
                    node.modules(src, KERNEL);
                    return org.gpuoperator.driver.host.CommandResult.ok(argv, "");
                });

        assertThatThrownBy(
                        () ->
                                installer(node, false)
                                        .buildModules(
                                                OTHER, Optional.of(src), Optional.of(headers)))
                .isInstanceOfSatisfying(
                        DriverStepException.class,
                        e -> assertThat(e.step()).isEqualTo(DriverStepException.Step.BUILD))
                .hasMessage(
                        "the build finished but "
                                + src.resolve("nvidia.ko")
                                + " is for kernel "
                                + KERNEL
                                + ", not "
                                + OTHER
                                + ": do the headers in "
                                + headers
                                + " belong to kernel "
                                + OTHER
                                + "?");
        assertThat(node.commands.callsOf("make").getFirst())
                .contains("SYSSRC=" + headers, "SYSOUT=" + headers);
    }

    @Test
    void buildModulesKeepsModulesBuiltForThatKernelAndRebuildsOnesForAnother() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        debianHeaders(node, OTHER);
        Path src = node.pkg.resolve("kernel");
        node.modules(src, OTHER);

        assertThat(installer(node, false).buildModules(OTHER, Optional.empty(), Optional.empty()))
                .isEqualTo(new ModulePlan.ReuseBuilt(src));
        assertThat(node.commands.callsOf("make")).isEmpty();

        node.modules(src, KERNEL);
        installer(node, false).buildModules(OTHER, Optional.empty(), Optional.empty());
        assertThat(node.commands.callsOf("make"))
                .extracting(List::getLast)
                .containsExactly("clean", "modules");
        // the clean, too, with that kernel's headers (not /lib/modules/$(uname -r))
        assertThat(node.commands.callsOf("make").getFirst())
                .contains("SYSOUT=" + node.host.path("/usr/src/linux-headers-" + OTHER));
        assertThat(node.log())
                .contains(
                        "event=kernel-mismatch",
                        "modules-built-for=" + KERNEL,
                        "target-kernel=" + OTHER);
    }

    @Test
    void modulesBuiltEarlierForThisKernelAreReused() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("kernel"), KERNEL);

        assertThat(installer(node, false).install().moduleSource()).isEqualTo("built");
        assertThat(node.commands.callsOf("make")).isEmpty();
    }

    @Test
    void noPrecompiledModulesAndNoHeadersIsAClearErrorNamingKernelAndPaths() {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("kernel"), "6.8.0-40-generic");

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOfSatisfying(
                        DriverStepException.class,
                        e -> assertThat(e.step()).isEqualTo(DriverStepException.Step.SELECT))
                .hasMessageContaining("no precompiled modules for kernel " + KERNEL)
                .hasMessageContaining("/usr/src/linux-headers-" + KERNEL)
                .hasMessageContaining("/lib/modules/" + KERNEL + "/build")
                .hasMessageContaining("built for kernel 6.8.0-40-generic")
                .hasMessageContaining("install linux-headers-" + KERNEL);
        assertThat(node.commands.callsOf("insmod")).isEmpty();
    }

    @Test
    void aFailedBuildNamesTheCommandItsExitCodeAndLastErrorLines() {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.headers();
        node.commands.fail(
                2,
                "nv.c:42: error: implicit declaration of function 'foo'\n"
                        + "make[2]: *** [nv.o] Error 1\nmake: *** [modules] Error 2\n",
                "make");

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOfSatisfying(
                        DriverStepException.class,
                        e -> assertThat(e.step()).isEqualTo(DriverStepException.Step.BUILD))
                .hasMessageContaining("exit code 2")
                .hasMessageContaining("make -C " + node.pkg.resolve("kernel"))
                .hasMessageContaining("implicit declaration of function")
                .hasMessageContaining("make: *** [modules] Error 2");
    }

    @Test
    void aFailedInsmodStopsTheLoadAndSaysWhy() {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        node.commands.fail(
                1,
                "insmod: ERROR: could not insert module nvidia-uvm.ko: Invalid module format\n",
                "insmod",
                node.pkg.resolve("precompiled/" + KERNEL + "/nvidia-uvm.ko").toString());

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOfSatisfying(
                        DriverStepException.class,
                        e -> assertThat(e.step()).isEqualTo(DriverStepException.Step.LOAD))
                .hasMessageContaining("exit code 1")
                .hasMessageContaining(
                        "insmod " + node.pkg.resolve("precompiled/" + KERNEL + "/nvidia-uvm.ko"))
                .hasMessageContaining("Invalid module format");
        assertThat(insmodFiles(node)).containsExactly("nvidia.ko", "nvidia-uvm.ko");
        assertThat(node.commands.callsOf("nvidia-persistenced")).isEmpty();
    }

    @Test
    void anUnusableKernelReleaseIsReported() {
        FakeNode node = new FakeNode(tmp, "", 1);

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOfSatisfying(
                        DriverStepException.class,
                        e -> assertThat(e.step()).isEqualTo(DriverStepException.Step.KERNEL))
                .hasMessageContaining("uname -r gave no usable kernel release");
    }

    @Test
    void anOlderLoadedDriverInUseIsNotUnloadedAndTheHoldersAreNamed() {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        node.loaded("535.161.08", "nvidia", "nvidia-uvm", "nvidia-modeset");
        node.process(4242, "python3", "/dev/nvidia0");
        node.process(4243, "bash", "/dev/pts/0");

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOfSatisfying(
                        DriverInUseException.class,
                        e -> {
                            assertThat(e.holders())
                                    .extracting(GpuHolders.Holder::pid)
                                    .containsExactly(4242L);
                            assertThat(e.holders().getFirst().command()).isEqualTo("python3");
                        })
                .hasMessageContaining("driver is in use")
                .hasMessageContaining("replace driver 535.161.08 with " + FakeNode.VERSION)
                .hasMessageContaining("pid 4242 (python3) /dev/nvidia0");
        assertThat(node.commands.callsOf("rmmod")).isEmpty();
        assertThat(node.commands.callsOf("insmod")).isEmpty();
    }

    @Test
    void anOlderLoadedDriverNobodyUsesIsUnloadedDependentsFirstThenTheNewOneLoaded()
            throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        node.loaded("535.161.08", "nvidia", "nvidia-uvm", "nvidia-modeset", "nvidia-drm");
        // The old driver's persistence daemon holds the GPU; it is ours to stop, not a blocker.
        FakeNode.write(node.pidFile, "777\n");
        node.process(777, "nvidia-persistenced", "/dev/nvidiactl");

        installer(node, false).install();

        assertThat(node.commands.callsOf("rmmod"))
                .extracting(List::getLast)
                .containsExactly("nvidia_drm", "nvidia_modeset", "nvidia_uvm", "nvidia");
        List<String> programs = node.commands.programs();
        assertThat(programs.indexOf("kill")).isLessThan(programs.indexOf("rmmod"));
        assertThat(programs.lastIndexOf("rmmod")).isLessThan(programs.indexOf("insmod"));
        assertThat(new NvidiaProcFs(node.host).loadedDriverVersion()).contains(FakeNode.VERSION);
    }

    @Test
    void theKernelRefusingAnUnloadIsAlsoInUseNotACrash() {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        node.loaded("535.161.08", "nvidia");
        node.commands.fail(1, "rmmod: ERROR: Module nvidia is in use\n", "rmmod");

        assertThatThrownBy(() -> installer(node, false).install())
                .isInstanceOf(DriverInUseException.class)
                .hasMessageContaining("rmmod nvidia: rmmod: ERROR: Module nvidia is in use");
    }
}
