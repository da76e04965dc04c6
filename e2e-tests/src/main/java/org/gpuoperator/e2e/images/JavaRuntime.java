package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Java runtime inside every local image: {@code jlink} of the JDK 25 this build runs on, never
 * the host's JDK at run time. Made once and reused while the JDK, the module list and the options
 * stay the same.
 */
public final class JavaRuntime {

    /**
     * The union of {@code jdeps -q --ignore-missing-deps --multi-release 25 --print-module-deps
     * --class-path '<c>/target/lib/*' <c>/target/<c>.jar} over the components (JDK 25.0.3), plus
     * modules that only reflection or ServiceLoader reach: jdk.naming.dns (JNDI DNS), jdk.zipfs
     * (jar file systems), jdk.crypto.ec (EC provider name still looked up by TLS stacks).
     * JavaRuntimeIT proves each component starts on exactly this runtime.
     */
    public static final List<String> MODULES =
            List.of(
                    "java.base",
                    "java.desktop",
                    "java.naming",
                    "java.net.http",
                    "java.sql",
                    "jdk.httpserver",
                    "jdk.jfr",
                    "jdk.management",
                    "jdk.unsupported",
                    "jdk.naming.dns",
                    "jdk.zipfs",
                    "jdk.crypto.ec");

    public static final List<String> JLINK_OPTIONS =
            List.of("--strip-debug", "--no-header-files", "--no-man-pages", "--compress=zip-6");

    private static final String RECIPE_FILE = ".recipe";

    private JavaRuntime() {}

    /**
     * The JDK to jlink from: the running one when it is 25 or newer, else the first JDK 25+ under
     * /usr/lib/jvm.
     */
    public static Path jdkHome() throws IOException {
        Path running = Path.of(System.getProperty("java.home"));
        if (Runtime.version().feature() >= 25 && Files.isExecutable(running.resolve("bin/jlink"))) {
            return running;
        }
        try (Stream<Path> jvms = Files.list(Path.of("/usr/lib/jvm"))) {
            for (Path jdk : jvms.sorted().toList()) {
                if (Files.isExecutable(jdk.resolve("bin/jlink")) && featureOf(jdk) >= 25) {
                    return jdk;
                }
            }
        }
        throw new IOException(
                "no JDK 25 with jlink: neither java.home ("
                        + running
                        + ") nor /usr/lib/jvm/* has one");
    }

    static int featureOf(Path jdk) throws IOException {
        Path release = jdk.resolve("release");
        if (!Files.isRegularFile(release)) {
            return 0;
        }
        for (String line : Files.readAllLines(release)) {
            if (line.startsWith("JAVA_VERSION=")) {
                String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                return Integer.parseInt(v.split("[.+-]")[0]);
            }
        }
        return 0;
    }

    /** What decides the runtime's content: the JDK build, the modules and the jlink options. */
    static String recipe(String jdkRelease) {
        return jdkRelease.strip()
                + "\nmodules="
                + String.join(",", MODULES)
                + "\noptions="
                + String.join(" ", JLINK_OPTIONS)
                + "\n";
    }

    /**
     * The jlinked runtime in {@code dir}, made now unless the one there was made from the same
     * recipe.
     */
    public static Path ensure(Path jdk, Path dir) throws IOException, InterruptedException {
        String recipe = recipe(Files.readString(jdk.resolve("release")));
        Path recipeFile = dir.resolve(RECIPE_FILE);
        if (Files.isRegularFile(recipeFile)
                && Files.readString(recipeFile).equals(recipe)
                && Files.isExecutable(dir.resolve("bin/java"))) {
            return dir;
        }
        deleteTree(dir);
        Files.createDirectories(dir.getParent());
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                jdk.resolve("bin/jlink").toString(),
                                "--add-modules",
                                String.join(",", MODULES)));
        cmd.addAll(JLINK_OPTIONS);
        cmd.addAll(List.of("--output", dir.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException("jlink failed for " + dir + ": " + out.strip());
        }
        Files.writeString(recipeFile, recipe);
        return dir;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
