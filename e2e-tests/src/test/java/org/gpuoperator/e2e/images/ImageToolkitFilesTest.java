package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The toolkit-agent image carries exactly what the agent installs on a real node, where the agent
 * looks for it: the Dockerfile's NVIDIA stage copies the agent's list of programs and libraries
 * (toolkit-agent's {@code NvidiaToolkitFiles}) into the directory that is the default of {@code
 * --toolkit-source-dir}, and the final stage copies that directory. The image cannot be built here
 * (no network for NVIDIA's apt repository); this compares the texts.
 */
class ImageToolkitFilesTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path DOCKERFILE = REPO.resolve("images/toolkit-agent/Dockerfile");

    /** {@code for f in A B C; do cp [-L] DIR/$f DEST/; done} in the NVIDIA stage's RUN. */
    private static final Pattern COPY_LOOP =
            Pattern.compile("for f in ([^;]+); do cp (-L )?(.+?)/\\$f (\\S+)/; done");

    record Loop(List<String> files, boolean dereference, String from, String to) {}

    static List<Loop> loops(String dockerfile) {
        List<Loop> loops = new ArrayList<>();
        Matcher m = COPY_LOOP.matcher(dockerfile);
        while (m.find()) {
            loops.add(
                    new Loop(
                            List.of(m.group(1).strip().split("\\s+")),
                            m.group(2) != null,
                            m.group(3),
                            m.group(4)));
        }
        return loops;
    }

    @SuppressWarnings("unchecked")
    static Object constant(String name) throws Exception {
        Path classes = REPO.resolve("toolkit-agent/target/classes");
        assertThat(classes.resolve("org/gpuoperator/toolkit/install/NvidiaToolkitFiles.class"))
                .as("toolkit-agent compiled (run with -am)")
                .exists();
        try (URLClassLoader cl = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
            Class<?> c = cl.loadClass("org.gpuoperator.toolkit.install.NvidiaToolkitFiles");
            return c.getField(name).get(null);
        }
    }

    @Test
    void theNvidiaStageGathersExactlyTheAgentsProgramsAndLibrariesInItsSourceDir()
            throws Exception {
        String text = Files.readString(DOCKERFILE);
        List<Loop> loops = loops(text);
        assertThat(loops).as("copy loops in %s", DOCKERFILE).hasSize(2);
        String sourceDir = (String) constant("SOURCE_DIR");
        Loop programs = loops.get(0);
        assertThat(programs.files()).isEqualTo(constant("PROGRAMS"));
        assertThat(programs.from()).isEqualTo("/usr/bin");
        assertThat(programs.to()).isEqualTo(sourceDir);
        Loop libraries = loops.get(1);
        assertThat(libraries.files()).isEqualTo(constant("LIBRARIES"));
        assertThat(libraries.dereference()).as("libraries copied as files, not links").isTrue();
        assertThat(libraries.to()).isEqualTo(sourceDir);
        assertThat(text).contains("mkdir -p " + sourceDir + ";");
    }

    @Test
    void theFinalStageCopiesTheSourceDirWhereTheAgentLooksByDefault() throws Exception {
        String sourceDir = (String) constant("SOURCE_DIR");
        ReleaseDockerfile release =
                ReleaseDockerfile.parse(DOCKERFILE.toString(), Files.readString(DOCKERFILE));
        assertThat(release.copies())
                .contains(
                        new ReleaseDockerfile.Copy(
                                "nvidia-toolkit", List.of(sourceDir + "/"), sourceDir + "/"));
        assertThat(
                        Files.readString(
                                REPO.resolve(
                                        "toolkit-agent/src/main/java/org/gpuoperator/toolkit/ToolkitAgentMain.java")))
                .as("--toolkit-source-dir defaults to NvidiaToolkitFiles.SOURCE_DIR")
                .contains("\"${env:TOOLKIT_SOURCE_DIR:-\"")
                .contains("+ org.gpuoperator.toolkit.install.NvidiaToolkitFiles.SOURCE_DIR");
    }

    @Test
    void theNvidiaPackagesArePinnedToOneVersion() throws Exception {
        String text = Files.readString(DOCKERFILE);
        for (String pkg :
                List.of(
                        "nvidia-container-toolkit",
                        "nvidia-container-toolkit-base",
                        "libnvidia-container-tools",
                        "libnvidia-container1")) {
            assertThat(text).contains(" " + pkg + "=${NVIDIA_TOOLKIT_VERSION}");
        }
    }
}
