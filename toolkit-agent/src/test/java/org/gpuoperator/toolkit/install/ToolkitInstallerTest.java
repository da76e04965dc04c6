package org.gpuoperator.toolkit.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.simulated.RuntimeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolkitInstallerTest {

    @TempDir Path host;

    @TempDir Path image;

    final NvidiaRuntimes rt = new NvidiaRuntimes("/usr/local/nvidia/toolkit", true, false);

    /** The image's source dir with every file; each program prints its environment and args. */
    void fillImage() throws Exception {
        for (String n : NvidiaToolkitFiles.PROGRAMS) {
            Files.writeString(
                    image.resolve(n),
                    "#!/bin/sh\necho \"" + n + " $XDG_CONFIG_HOME $LD_LIBRARY_PATH $*\"\n");
        }
        for (String n : NvidiaToolkitFiles.LIBRARIES) {
            Files.writeString(image.resolve(n), "library " + n);
        }
    }

    @Test
    void realModeInstallsProgramsBehindWrappersLibrariesAndTheRuntimeConfigOnce() throws Exception {
        fillImage();
        Files.createDirectories(host.resolve("run/nvidia/driver/sbin"));
        Files.writeString(host.resolve("run/nvidia/driver/sbin/ldconfig.real"), "");
        ToolkitInstaller i = new ToolkitInstaller(host, rt, image, "/run/nvidia/driver");
        // 7 programs + 7 wrappers + 2 libraries + the config
        assertThat(i.install()).hasSize(17);
        Path dir = host.resolve("usr/local/nvidia/toolkit");
        assertThat(dir.resolve("nvidia-ctk.real")).isExecutable();
        assertThat(dir.resolve("nvidia-ctk"))
                .isExecutable()
                .content()
                .contains("XDG_CONFIG_HOME='/usr/local/nvidia/toolkit'/.config")
                .contains("exec '/usr/local/nvidia/toolkit'/'nvidia-ctk.real' \"$@\"");
        assertThat(dir.resolve("libnvidia-container.so.1"))
                .hasContent("library libnvidia-container.so.1");
        assertThat(Files.isExecutable(dir.resolve("libnvidia-container.so.1"))).isFalse();
        assertThat(dir.resolve(".config/nvidia-container-runtime/config.toml"))
                .content()
                .contains(
                        "[nvidia-container-cli]\nroot = \"/run/nvidia/driver\"\n"
                                + "path = \"/usr/local/nvidia/toolkit/nvidia-container-cli\"\n")
                .contains("ldconfig = \"@/run/nvidia/driver/sbin/ldconfig.real\"")
                .contains("path = \"/usr/local/nvidia/toolkit/nvidia-container-runtime-hook\"");
        org.tomlj.TomlParseResult toml =
                org.tomlj.Toml.parse(dir.resolve(".config/nvidia-container-runtime/config.toml"));
        assertThat(toml.errors()).isEmpty();
        i.verify();
        assertThat(i.install()).isEmpty();
    }

    @Test
    void aHostDriverGetsTheHostsLdconfig() throws Exception {
        fillImage();
        new ToolkitInstaller(host, rt, image, "/").install();
        assertThat(
                        host.resolve(
                                "usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml"))
                .content()
                .contains("root = \"/\"")
                .contains("ldconfig = \"@/sbin/ldconfig\"");
    }

    @Test
    void theWrapperRunsTheRealProgramWithTheInstallDirsConfigAndLibraries() throws Exception {
        fillImage();
        Path dir = host.resolve("toolkit");
        NvidiaRuntimes here = new NvidiaRuntimes(dir.toString(), false, false);
        new ToolkitInstaller(Path.of("/"), here, image, "/").install();
        Process p =
                new ProcessBuilder(dir.resolve("nvidia-container-cli").toString(), "info")
                        .redirectErrorStream(true)
                        .start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(p.getInputStream().readAllBytes()).strip())
                .startsWith("nvidia-container-cli " + dir + "/.config " + dir)
                .endsWith(" info");
    }

    @Test
    void aRuntimeWrapperRunsRuncWhileTheNvidiaModuleIsNotLoaded() throws Exception {
        Path dir = host.resolve("toolkit");
        Path bin = host.resolve("bin");
        Files.createDirectories(dir);
        Files.createDirectories(bin);
        for (Path p :
                List.of(
                        dir.resolve("nvidia-container-runtime.real"),
                        dir.resolve("nvidia-ctk.real"),
                        bin.resolve("runc"))) {
            Files.writeString(p, "#!/bin/sh\necho \"" + p.getFileName() + " $*\"\n");
            p.toFile().setExecutable(true);
        }
        Path modules = host.resolve("modules");
        for (String name : List.of("nvidia-container-runtime", "nvidia-ctk")) {
            Path w = dir.resolve(name);
            Files.writeString(
                    w, ToolkitInstaller.realWrapper(dir.toString(), name, modules.toString()));
            w.toFile().setExecutable(true);
        }

        // no module file, then only nvidia's helpers: runc, silently (the shim parses its output)
        assertThat(run(dir.resolve("nvidia-container-runtime"), bin)).isEqualTo("runc state x");
        Files.writeString(modules, "nvidia_uvm 1 0 - Live 0x0\nnvidia_modeset 1 0 - Live 0x0\n");
        assertThat(run(dir.resolve("nvidia-container-runtime"), bin)).isEqualTo("runc state x");
        // a tool runs whatever is loaded
        assertThat(run(dir.resolve("nvidia-ctk"), bin)).isEqualTo("nvidia-ctk.real state x");
        // loaded: the real runtime
        Files.writeString(modules, "nvidia_uvm 1 0 - Live 0x0\nnvidia 5 2 nvidia_uvm, Live 0x0\n");
        assertThat(run(dir.resolve("nvidia-container-runtime"), bin))
                .isEqualTo("nvidia-container-runtime.real state x");
        // the installed wrappers look at the kernel's list
        assertThat(
                        ToolkitInstaller.realWrapper(
                                "/usr/local/nvidia/toolkit", "nvidia-container-runtime.cdi"))
                .contains("grep -q '^nvidia ' '/proc/modules'");
        assertThat(
                        ToolkitInstaller.realWrapper(
                                "/usr/local/nvidia/toolkit", "nvidia-container-runtime-hook"))
                .doesNotContain("/proc/modules");
    }

    private static String run(Path wrapper, Path pathDir) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(wrapper.toString(), "state", "x");
        pb.environment().put("PATH", pathDir + ":/usr/bin:/bin");
        Process p = pb.redirectErrorStream(true).start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes()).strip();
    }

    @Test
    void aMissingFileInstallsNothingAndNamesTheFile() throws Exception {
        fillImage();
        Files.delete(image.resolve("libnvidia-container-go.so.1"));
        Files.delete(image.resolve("nvidia-container-runtime.cdi"));
        ToolkitInstaller i = new ToolkitInstaller(host, rt, image, "/run/nvidia/driver");
        assertThatThrownBy(i::install)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "lacks nvidia-container-runtime.cdi, libnvidia-container-go.so.1")
                .hasMessageContaining("nothing installed");
        assertThat(host.resolve("usr")).doesNotExist();
    }

    static final RuntimeConfig CONFIG =
            new RuntimeConfig("/run/nvidia/driver", "n1", "simulated:l4-x2", "/host", null);

    /** A small stand-in for the image's jlink runtime and the agent's jars. */
    RuntimePayload payload(Path dir) throws Exception {
        Path jre = dir.resolve("java-home");
        Files.createDirectories(jre.resolve("bin"));
        Files.writeString(jre.resolve("bin/java"), "#!/bin/sh\necho fake java\n");
        Files.createDirectories(jre.resolve("lib"));
        Files.write(jre.resolve("lib/modules"), new byte[300_000]);
        Files.createSymbolicLink(jre.resolve("lib/link"), Path.of("modules"));
        Path jars = dir.resolve("jars");
        Files.createDirectories(jars);
        Files.writeString(jars.resolve("toolkit-agent.jar"), "agent");
        Files.writeString(jars.resolve("node-agent-lib.jar"), "lib");
        return new RuntimePayload(
                jre,
                List.of(jars.resolve("toolkit-agent.jar"), jars.resolve("node-agent-lib.jar")));
    }

    @Test
    void simulatedModeInstallsTheRuntimeItsJavaPartAndConfigOnceAndOnlyWhatChanged()
            throws Exception {
        RuntimePayload payload = payload(image);
        ToolkitInstaller i =
                new ToolkitInstaller(
                        host,
                        rt,
                        true,
                        image,
                        "/var/log/shim.log",
                        new ToolkitInstaller.SimulatedRuntime(CONFIG, payload),
                        null);
        List<String> first = i.install();
        Path dir = host.resolve("usr/local/nvidia/toolkit");
        assertThat(first)
                .contains(
                        "/usr/local/nvidia/toolkit/nvidia-container-runtime",
                        "/usr/local/nvidia/toolkit/nvidia-smi",
                        "/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml",
                        "/usr/local/nvidia/toolkit/jre/bin/java",
                        "/usr/local/nvidia/toolkit/jre/lib/modules",
                        "/usr/local/nvidia/toolkit/lib/toolkit-agent.jar",
                        "/usr/local/nvidia/toolkit/lib/node-agent-lib.jar");
        assertThat(dir.resolve("nvidia-container-runtime"))
                .isExecutable()
                .content()
                .contains("\"$dir/jre/bin/java\"")
                .contains("-cp \"$dir/lib/toolkit-agent.jar:$dir/lib/node-agent-lib.jar\"")
                .contains(
                        "-XX:SharedArchiveFile=$dir/simulated-runtime.jsa -XX:+AutoCreateSharedArchive\"")
                .contains(" $cds ");
        assertThat(dir.resolve("nvidia-smi")).isExecutable();
        // the CDI specs' hook path exists and does nothing
        assertThat(dir.resolve("nvidia-cdi-hook")).isExecutable().content().endsWith("exit 0\n");
        assertThat(Files.isExecutable(dir.resolve(RuntimeConfig.RELATIVE_PATH))).isFalse();
        assertThat(
                        RuntimeConfig.parse(
                                Files.readString(dir.resolve(RuntimeConfig.RELATIVE_PATH)), dir))
                .isEqualTo(CONFIG);
        assertThat(Files.readSymbolicLink(dir.resolve("jre/lib/link")))
                .isEqualTo(Path.of("modules"));
        i.verify();

        var modulesTime = Files.getLastModifiedTime(dir.resolve("jre/lib/modules"));
        long t0 = System.nanoTime();
        assertThat(i.install()).isEmpty();
        long secondMicros = (System.nanoTime() - t0) / 1000;
        System.out.println("second simulated install (nothing to write): " + secondMicros + " us");
        assertThat(Files.getLastModifiedTime(dir.resolve("jre/lib/modules")))
                .isEqualTo(modulesTime);

        // a new agent version: one jar changes, one goes away
        Files.writeString(image.resolve("jars/toolkit-agent.jar"), "agent v2");
        RuntimePayload next =
                new RuntimePayload(
                        payload.javaHome(), List.of(image.resolve("jars/toolkit-agent.jar")));
        ToolkitInstaller upgraded =
                new ToolkitInstaller(
                        host,
                        rt,
                        true,
                        image,
                        "/var/log/shim.log",
                        new ToolkitInstaller.SimulatedRuntime(CONFIG, next),
                        null);
        assertThat(upgraded.install())
                .containsExactlyInAnyOrder(
                        "/usr/local/nvidia/toolkit/lib/toolkit-agent.jar",
                        "/usr/local/nvidia/toolkit/lib/node-agent-lib.jar",
                        "/usr/local/nvidia/toolkit/nvidia-container-runtime",
                        "/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi",
                        "/usr/local/nvidia/toolkit/nvidia-container-runtime.legacy");
        assertThat(dir.resolve("lib/toolkit-agent.jar")).hasContent("agent v2");
        assertThat(dir.resolve("lib/node-agent-lib.jar")).doesNotExist();
    }

    @Test
    void aJavaHomeOver200MbIsReferencedInPlaceAndSaidSo() throws Exception {
        RuntimePayload small = payload(image);
        try (var f =
                new java.io.RandomAccessFile(
                        small.javaHome().resolve("lib/modules").toFile(), "rw")) {
            f.setLength(RuntimePayload.COPY_LIMIT_BYTES + 1); // sparse: no disk used
        }
        java.io.ByteArrayOutputStream logs = new java.io.ByteArrayOutputStream();
        ToolkitInstaller i =
                new ToolkitInstaller(
                        host,
                        rt,
                        true,
                        image,
                        "/var/log/shim.log",
                        new ToolkitInstaller.SimulatedRuntime(CONFIG, small),
                        new org.gpuoperator.node.agent.EventLog(
                                "test", new java.io.PrintStream(logs)));
        i.install();
        Path dir = host.resolve("usr/local/nvidia/toolkit");
        assertThat(dir.resolve("jre")).doesNotExist();
        assertThat(dir.resolve("lib")).doesNotExist();
        assertThat(dir.resolve("nvidia-container-runtime"))
                .content()
                .contains("'" + small.javaHome().resolve("bin/java") + "'")
                .contains(
                        "'"
                                + image.resolve("jars/toolkit-agent.jar")
                                + ":"
                                + image.resolve("jars/node-agent-lib.jar")
                                + "'");
        assertThat(logs.toString())
                .contains("event=simulated-runtime-java")
                .contains("referenced-in-place");

        // a class directory on the classpath (development): no class data archive, its dump would
        // fail the create
        Files.createDirectories(image.resolve("classes"));
        new ToolkitInstaller(
                        host,
                        rt,
                        true,
                        image,
                        "/var/log/shim.log",
                        new ToolkitInstaller.SimulatedRuntime(
                                CONFIG,
                                new RuntimePayload(
                                        small.javaHome(), List.of(image.resolve("classes")))),
                        null)
                .install();
        assertThat(dir.resolve("nvidia-container-runtime")).content().doesNotContain(" $cds ");
    }

    @Test
    void simulatedWrapperLogsEachCallAndRunsRuncForEverythingButCreate() throws Exception {
        Path log = host.resolve("shim.log");
        ToolkitInstaller i =
                new ToolkitInstaller(
                        host,
                        rt,
                        true,
                        image,
                        log.toString(),
                        new ToolkitInstaller.SimulatedRuntime(CONFIG, payload(image)),
                        null);
        i.install();
        Path shim = host.resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
        Process p =
                new ProcessBuilder(shim.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(log)).isEqualTo("nvidia-container-runtime --version\n");
        if (Files.isExecutable(Path.of("/usr/sbin/runc"))) {
            assertThat(out).contains("runc version");
        }
    }
}
