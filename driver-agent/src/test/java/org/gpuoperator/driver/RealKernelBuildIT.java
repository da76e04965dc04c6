package org.gpuoperator.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.ProcessHostCommands;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code -Preal-kernel-build} only: {@code driver-agent build-modules} builds Debian's
 * nvidia-kernel-dkms (535) sources against bookworm's installed kernel headers, a kernel that is
 * not the running one, and the built modules' vermagic names that kernel. Skips, saying what to
 * install, when the headers or the sources are not there.
 */
class RealKernelBuildIT {

    static final Pattern BOOKWORM_KERNEL = Pattern.compile("6\\.1\\.0-(\\d+)-amd64");
    static final Path WORK = Path.of("target/real-kernel-build").toAbsolutePath();
    static final Duration QUICK = Duration.ofMinutes(2);

    final HostCommands host = new ProcessHostCommands();

    @Test
    void modulesBuiltForAnInstalledBookwormKernelNameItInTheirVermagic() throws Exception {
        String running = run(List.of("uname", "-r")).stdout().strip();
        Optional<String> found = bookwormKernel(running);
        assumeTrue(
                found.isPresent(),
                () ->
                        skip(
                                "no headers of a Debian bookworm kernel (6.1.0-*-amd64, other than the"
                                        + " running "
                                        + running
                                        + ") under /lib/modules: apt-get install -y"
                                        + " --no-install-recommends linux-headers-amd64"));
        String kernel = found.get();
        Optional<Path> sources = dkmsSources();
        assumeTrue(
                sources.isPresent(),
                () ->
                        skip(
                                "no nvidia-kernel-dkms sources: apt-get download nvidia-kernel-dkms"
                                        + " failed (bookworm non-free in the apt sources?) and no"
                                        + " -Dreal.kernel.dkms.deb=FILE was given"));
        Path src = sources.get();
        int jobs =
                Integer.getInteger(
                        "real.kernel.build.jobs", Runtime.getRuntime().availableProcessors());

        String loadBefore = Files.readString(Path.of("/proc/loadavg")).strip();
        long start = System.nanoTime();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = DriverAgentMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit =
                cl.execute(
                        "--host-root",
                        "/",
                        "--validations-dir",
                        WORK.resolve("validations").toString(),
                        "--build-jobs",
                        Integer.toString(jobs),
                        "build-modules",
                        "--kernel",
                        kernel,
                        "--sources",
                        src.toString());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).strip();

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString().strip()).isEqualTo("built for kernel " + kernel + " in " + src);
        for (String module : List.of("nvidia", "nvidia-uvm", "nvidia-modeset", "nvidia-drm")) {
            String vermagic =
                    run(List.of(
                                    "modinfo",
                                    "-F",
                                    "vermagic",
                                    src.resolve(module + ".ko").toString()))
                            .stdout()
                            .strip();
            assertThat(vermagic).as(module).startsWith(kernel + " ");
            assertThat(vermagic.split("\\s+")[0]).as(module).isNotEqualTo(running);
        }
        String vermagic =
                run(List.of("modinfo", "-F", "vermagic", src.resolve("nvidia.ko").toString()))
                        .stdout()
                        .strip();
        String version =
                run(List.of("modinfo", "-F", "version", src.resolve("nvidia.ko").toString()))
                        .stdout()
                        .strip();
        String result =
                String.format(
                        "real-kernel-build: nvidia %s built for %s (running %s) with make -j%d on %d"
                                + " CPUs in %dm%02ds; vermagic \"%s\"; loadavg before \"%s\","
                                + " after \"%s\"%n",
                        version,
                        kernel,
                        running,
                        jobs,
                        Runtime.getRuntime().availableProcessors(),
                        took.toMinutes(),
                        took.toSecondsPart(),
                        vermagic,
                        loadBefore,
                        loadAfter);
        System.out.print(result);
        Files.writeString(WORK.resolve("result.txt"), result);
    }

    /** The newest bookworm kernel with headers in /lib/modules/K/build, not the running one. */
    static Optional<String> bookwormKernel(String running) throws IOException {
        Path modules = Path.of("/lib/modules");
        if (!Files.isDirectory(modules)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(modules)) {
            return dirs.map(d -> d.getFileName().toString())
                    .filter(k -> BOOKWORM_KERNEL.matcher(k).matches() && !k.equals(running))
                    .filter(k -> Files.isRegularFile(modules.resolve(k).resolve("build/.config")))
                    .max(Comparator.comparingInt(RealKernelBuildIT::abi));
        }
    }

    static int abi(String kernel) {
        Matcher m = BOOKWORM_KERNEL.matcher(kernel);
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /**
     * The package's sources, freshly extracted under target/: from -Dreal.kernel.dkms.deb, a .deb
     * downloaded earlier, or {@code apt-get download nvidia-kernel-dkms}.
     */
    Optional<Path> dkmsSources() throws IOException, InterruptedException {
        Files.createDirectories(WORK);
        Optional<Path> deb =
                Optional.ofNullable(System.getProperty("real.kernel.dkms.deb"))
                        .filter(s -> !s.isBlank())
                        .map(Path::of)
                        .or(this::downloadedDeb);
        if (deb.isEmpty()) {
            CommandResult r =
                    host.run(
                            List.of(
                                    "sh",
                                    "-c",
                                    "cd \"$0\" && apt-get download nvidia-kernel-dkms",
                                    WORK.toString()),
                            Duration.ofMinutes(5));
            if (!r.succeeded()) {
                System.err.println(
                        "real-kernel-build: " + r.commandLine() + ": " + r.lastErrorLines(5));
            }
            deb = downloadedDeb();
        }
        if (deb.isEmpty()) {
            return Optional.empty();
        }
        Path root = WORK.resolve("root");
        run(List.of("rm", "-rf", root.toString()));
        run(List.of("dpkg", "-x", deb.get().toString(), root.toString()));
        try (Stream<Path> dirs = Files.list(root.resolve("usr/src"))) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("nvidia-"))
                    .filter(d -> Files.isRegularFile(d.resolve("Makefile")))
                    .findFirst();
        }
    }

    Optional<Path> downloadedDeb() {
        try (Stream<Path> files = Files.list(WORK)) {
            return files.filter(
                            f -> {
                                String n = f.getFileName().toString();
                                return n.startsWith("nvidia-kernel-dkms_") && n.endsWith(".deb");
                            })
                    .max(Comparator.naturalOrder());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    CommandResult run(List<String> argv) throws InterruptedException {
        return host.runChecked(argv, QUICK);
    }

    static String skip(String why) {
        System.err.println("real-kernel-build: skipped: " + why);
        return why;
    }
}
