package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/simulate}'s rebuild check (SIMULATE_CHECK_ONLY=1: it says, builds nothing). */
class BinSimulateTest {

    static final Path REPO = RepoRoot.find();

    @Test
    void itChecksEveryModuleOfTheRootPom() throws Exception {
        List<String> modules = new ArrayList<>();
        Matcher m =
                Pattern.compile("<module>([^<]+)</module>")
                        .matcher(Files.readString(REPO.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertThat(modules).contains("validator", "kubelet-emulator", "e2e-tests");
        assertThat(checked(run(REPO))).isEqualTo(modules);
    }

    @Test
    void aModuleWithoutItsJarOrWithSourcesNewerThanItIsStale(@TempDir Path repo) throws Exception {
        Files.createDirectories(repo.resolve("bin"));
        Files.copy(REPO.resolve("bin/simulate"), repo.resolve("bin/simulate"));
        Files.writeString(
                repo.resolve("pom.xml"),
                """
                <project>
                  <modules>
                    <module>api-crds</module>
                    <!-- test support -->
                    <module>kubelet-emulator</module>
                    <module>validator</module>
                  </modules>
                </project>
                """);
        Instant old = Instant.now().minusSeconds(3600);
        for (String module : List.of("api-crds", "kubelet-emulator", "validator")) {
            Path src = repo.resolve(module + "/src/main/java/A.java");
            Files.createDirectories(src.getParent());
            Files.writeString(src, "class A {}");
            Files.writeString(repo.resolve(module + "/pom.xml"), "<project/>");
            try (var all = Files.walk(repo.resolve(module))) {
                for (Path p : all.toList()) {
                    Files.setLastModifiedTime(p, FileTime.from(old));
                }
            }
        }
        Files.setLastModifiedTime(repo.resolve("pom.xml"), FileTime.from(old));
        for (String module : List.of("api-crds", "validator")) {
            Path jar = repo.resolve(module + "/target/" + module + ".jar");
            Files.createDirectories(jar.getParent());
            Files.writeString(jar, "jar");
            Files.setLastModifiedTime(jar, FileTime.from(old.plusSeconds(60)));
        }
        assertThat(stale(run(repo))).containsExactly("kubelet-emulator");

        Files.setLastModifiedTime(
                repo.resolve("validator/src/main/java/A.java"),
                FileTime.from(old.plusSeconds(120)));
        assertThat(stale(run(repo))).containsExactly("kubelet-emulator", "validator");
    }

    private static List<String> run(Path repo) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder("bash", repo.resolve("bin/simulate").toString())
                        .redirectErrorStream(true);
        pb.environment().put("SIMULATE_CHECK_ONLY", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    private static List<String> checked(List<String> out) {
        return words(out, "checked:");
    }

    private static List<String> stale(List<String> out) {
        return words(out, "stale:");
    }

    private static List<String> words(List<String> out, String prefix) {
        String line = out.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
        String rest = line.substring(prefix.length()).strip();
        return rest.isEmpty() ? List.of() : Arrays.asList(rest.split(" "));
    }
}
