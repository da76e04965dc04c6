package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The jlinked runtime (JavaRuntime.MODULES) starts every component with its image's flags: no
 * module is missing.
 */
class JavaRuntimeIT {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyComponentPrintsItsVersionOnTheJlinkedRuntime() throws Exception {
        Path runtime =
                JavaRuntime.ensure(
                        JavaRuntime.jdkHome(),
                        LocalImages.defaultOutDir(REPO).resolve("java-runtime"));
        for (String c : ImageLayout.COMPONENTS) {
            Process p =
                    new ProcessBuilder(
                                    runtime.resolve("bin/java").toString(),
                                    "@" + REPO.resolve("images").resolve(c).resolve("jvm.flags"),
                                    "-jar",
                                    REPO.resolve(c)
                                            .resolve("target")
                                            .resolve(c + ".jar")
                                            .toString(),
                                    "--version")
                            .redirectErrorStream(true)
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("%s --version: %s", c, out).isZero();
            assertVersionLine(c, out);
        }
    }

    /**
     * "{@code <component> <version>}", or the version alone (the controller), from the jar's
     * manifest.
     */
    static void assertVersionLine(String component, String out) throws java.io.IOException {
        try (java.util.jar.JarFile jar =
                new java.util.jar.JarFile(
                        REPO.resolve(component)
                                .resolve("target")
                                .resolve(component + ".jar")
                                .toFile())) {
            String version =
                    jar.getManifest().getMainAttributes().getValue("Implementation-Version");
            assertThat(out.strip())
                    .as(component)
                    .matches("(" + component + " )?" + java.util.regex.Pattern.quote(version));
        }
    }
}
