package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * images/RetargetOldClasses.java, the build step that makes a component's lib/ linkable by the AOT
 * cache, run as the build runs it (a source-file program on this JDK) on the real picocli jar from
 * the local repository, which is compiled for Java 5.
 */
class RetargetOldClassesTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @Test
    void picocliBecomesLinkableAndStillVerifiesAndRuns(@TempDir Path lib) throws Exception {
        Path jar = Files.copy(picocliJar(), lib.resolve("picocli.jar"));
        assertThat(classesOlderThan(50, jar)).as("picocli as released").hasSizeGreaterThan(100);

        String out = retarget(lib);

        assertThat(out).contains(jar + ": ").contains("now version 52 with stack maps");
        assertThat(classesOlderThan(50, jar)).isEmpty();
        // version 52 has no fallback to the old verifier: a wrong stack map fails here, at load
        // (picocli's own command, whose parse and help go through its annotations and reflection)
        Process p =
                new ProcessBuilder(
                                JAVA.toString(),
                                "-Xshare:off",
                                "-cp",
                                jar.toString(),
                                "picocli.AutoComplete",
                                "--help")
                        .redirectErrorStream(true)
                        .start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(help).isZero();
        assertThat(help).contains("Usage: picocli.AutoComplete").doesNotContain("VerifyError");
    }

    @Test
    void aSecondRunLeavesTheJarAsItIs(@TempDir Path lib) throws Exception {
        Path jar = Files.copy(picocliJar(), lib.resolve("picocli.jar"));
        retarget(lib);
        byte[] once = Files.readAllBytes(jar);
        var modified = Files.getLastModifiedTime(jar);

        assertThat(retarget(lib)).isEmpty();

        assertThat(Files.readAllBytes(jar)).isEqualTo(once);
        assertThat(Files.getLastModifiedTime(jar)).isEqualTo(modified);
    }

    @Test
    void aSignedJarIsLeftAsItWasAndSaidSo(@TempDir Path lib) throws Exception {
        Path jar = lib.resolve("signed.jar");
        try (ZipFile in = new ZipFile(picocliJar().toFile());
                ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar))) {
            for (ZipEntry e : Collections.list(in.entries())) {
                out.putNextEntry(new ZipEntry(e.getName()));
                in.getInputStream(e).transferTo(out);
                out.closeEntry();
            }
            out.putNextEntry(new ZipEntry("META-INF/SIGNER.SF"));
            out.write("Signature-Version: 1.0\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        byte[] before = Files.readAllBytes(jar);

        assertThat(retarget(lib))
                .contains(jar + ": left as it was: ")
                .contains("signed (META-INF/SIGNER.SF)");

        assertThat(Files.readAllBytes(jar)).isEqualTo(before);
    }

    /** Runs the build step on {@code lib}; its output. */
    private static String retarget(Path lib) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(
                                JAVA.toString(),
                                REPO.resolve("images/RetargetOldClasses.java").toString(),
                                lib.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.strip();
    }

    private static Path picocliJar() throws URISyntaxException {
        return Path.of(
                CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The class entries of {@code jar} whose class file version is below {@code version}. */
    static List<String> classesOlderThan(int version, Path jar) throws IOException {
        List<String> old = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                if (!e.getName().endsWith(".class") || e.getName().endsWith("module-info.class")) {
                    continue;
                }
                try (InputStream in = zip.getInputStream(e);
                        DataInputStream data = new DataInputStream(in)) {
                    data.readInt(); // magic
                    data.readUnsignedShort(); // minor
                    if (data.readUnsignedShort() < version) {
                        old.add(e.getName());
                    }
                }
            }
        }
        return old;
    }
}
