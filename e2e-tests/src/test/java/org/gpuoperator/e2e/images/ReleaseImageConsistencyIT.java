package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The release image definitions ({@code images/<component>/Dockerfile}) and the local images
 * (LocalImages) hold the same application content and run it the same way: same jar, libs and JVM
 * flags at the same paths, same entrypoint, user and working directory. A COPY the local image
 * cannot have (from an image in a registry) must be listed here.
 */
class ReleaseImageConsistencyIT {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    /** COPY --from=<registry image> destinations that exist only in released images, and why. */
    private static final Map<String, String> RELEASE_ONLY =
            Map.of(
                    "/opt/java/openjdk",
                            "the released driver-agent takes Temurin's JRE; the local image has the jlinked one there",
                    "/artifacts/toolkit/",
                            "NVIDIA's runtime comes from its apt repository (the nvidia-toolkit stage); simulated nodes get the shim instead");

    private static Map<String, LocalImages.LocalImage> images;

    @BeforeAll
    static void build() throws Exception {
        images = new LocalImages(REPO, LocalImages.defaultOutDir(REPO)).buildAll();
    }

    @Test
    void everyLocalImageHoldsWhatItsDockerfileCopiesAndRunsItTheSameWay() throws IOException {
        SoftAssertions soft = new SoftAssertions();
        for (String c : ImageLayout.COMPONENTS) {
            Path dockerfile = REPO.resolve("images").resolve(c).resolve("Dockerfile");
            ReleaseDockerfile release =
                    ReleaseDockerfile.parse(
                            REPO.relativize(dockerfile).toString(), Files.readString(dockerfile));
            OciArchiveContents local = OciArchiveContents.read(images.get(c).archive());
            String where =
                    c
                            + " ("
                            + REPO.relativize(dockerfile)
                            + " vs "
                            + images.get(c).archive().getFileName()
                            + ")";

            soft.assertThat(local.entrypoint())
                    .as("entrypoint of %s", where)
                    .isEqualTo(release.entrypoint());
            soft.assertThat(local.user()).as("user of %s", where).isEqualTo(release.user());
            soft.assertThat(local.workingDirectory())
                    .as("working directory of %s", where)
                    .isEqualTo(release.workingDirectory());
            for (Map.Entry<String, String> e : release.env().entrySet()) {
                String localValue = env(local, e.getKey());
                String expected = e.getValue();
                if (expected.endsWith(":$PATH")) {
                    soft.assertThat(localValue)
                            .as("%s of %s", e.getKey(), where)
                            .startsWith(expected.replace("$PATH", ""));
                } else {
                    soft.assertThat(localValue)
                            .as("%s of %s", e.getKey(), where)
                            .isEqualTo(expected);
                }
            }
            // `java` in the entrypoint is found on PATH: it must lead to the image's runtime
            soft.assertThat(env(local, "PATH"))
                    .as("PATH of %s", where)
                    .startsWith(ImageLayout.JAVA_HOME + "/bin:");
            soft.assertThat(local.files())
                    .as("java of %s", where)
                    .containsKey(ImageLayout.JAVA_HOME + "/bin/java");

            Path target = REPO.resolve(c).resolve("target");
            List<String> expectedApp = new ArrayList<>();
            for (ReleaseDockerfile.Copy copy : release.copies()) {
                String src = copy.sources().getFirst();
                if (copy.from().isEmpty() && src.equals(c + "/target/" + c + ".jar")) {
                    soft.assertThat(copy.destination())
                            .as("jar destination in %s", where)
                            .isEqualTo(ImageLayout.jar(c));
                    sameBytes(soft, local, copy.destination(), target.resolve(c + ".jar"), where);
                    expectedApp.add(copy.destination());
                } else if (copy.from().isEmpty() && src.equals(c + "/target/lib/")) {
                    soft.assertThat(copy.destination())
                            .as("lib destination in %s", where)
                            .isEqualTo(ImageLayout.LIB_DIR);
                    try (Stream<Path> libs = Files.list(target.resolve("lib"))) {
                        for (Path lib : libs.sorted().toList()) {
                            sameBytes(
                                    soft,
                                    local,
                                    copy.destination() + lib.getFileName(),
                                    lib,
                                    where);
                            expectedApp.add(copy.destination() + lib.getFileName());
                        }
                    }
                } else if (copy.from().isEmpty()) {
                    soft.assertThat(copy.sources())
                            .as("build-context COPY in %s", where)
                            .containsExactly("images/" + c + "/jvm.flags");
                    soft.assertThat(copy.destination())
                            .as("jvm.flags destination in %s", where)
                            .isEqualTo(ImageLayout.JVM_FLAGS);
                    sameBytes(soft, local, copy.destination(), REPO.resolve(src), where);
                    expectedApp.add(copy.destination());
                } else {
                    soft.assertThat(RELEASE_ONLY)
                            .as(
                                    "COPY --from=%s %s in %s: not in the local image and not listed as "
                                            + "release-only",
                                    copy.from(), copy.destination(), where)
                            .containsKey(copy.destination());
                }
            }
            // the AOT cache its training RUN makes in /app (AotCacheDefinitionTest: the same step)
            AotTraining aot = AotTraining.of(REPO.relativize(dockerfile).toString(), release);
            soft.assertThat(local.files()).as("AOT cache of %s", where).containsKey(aot.cache());
            OciArchiveContents.FileInfo cache = local.files().get(aot.cache());
            if (cache != null) {
                soft.assertThat(cache.sha256())
                        .as("bytes of %s in %s", aot.cache(), where)
                        .isEqualTo(
                                OciArchiveContents.sha256(
                                        LocalImages.aotCacheIn(
                                                LocalImages.defaultOutDir(REPO), c)));
            }
            expectedApp.add(aot.cache());
            // and nothing under /app that the Dockerfile does not put there
            List<String> localApp =
                    local.files().values().stream()
                            .filter(f -> !f.directory())
                            .map(OciArchiveContents.FileInfo::path)
                            .filter(p -> p.startsWith(ImageLayout.APP_DIR + "/"))
                            .sorted()
                            .toList();
            soft.assertThat(localApp)
                    .as("files under /app in %s", where)
                    .containsExactlyInAnyOrderElementsOf(expectedApp);
        }
        soft.assertAll();
    }

    @Test
    void everyClassInAnImagesLibIsOneItsAotCacheCanLink() throws IOException {
        // the image's lib/ is the component's target/lib byte for byte (above); classes older than
        // version 50 would be left out of the cache and loaded from the jar at every start
        for (String c : ImageLayout.COMPONENTS) {
            try (Stream<Path> libs = Files.list(REPO.resolve(c).resolve("target").resolve("lib"))) {
                for (Path jar : libs.sorted().toList()) {
                    assertThat(RetargetOldClassesTest.classesOlderThan(50, jar))
                            .as(
                                    "classes of %s's lib/%s the AOT cache cannot link",
                                    c, jar.getFileName())
                            .isEmpty();
                }
            }
        }
    }

    @Test
    void theBaseAndRuntimeLayersAreSharedByEveryComponentImage() throws IOException {
        TreeSet<String> bottomTwo = new TreeSet<>();
        for (String c : ImageLayout.COMPONENTS) {
            OciArchiveContents local = OciArchiveContents.read(images.get(c).archive());
            bottomTwo.add(String.join(" ", local.layerDigests().subList(0, 2)));
            assertThat(local.reference()).isEqualTo(ImageReferences.read(REPO).get(c));
            assertThat(local.files().get("/tmp").directory()).isTrue();
            assertThat(local.files())
                    .containsKeys("/etc/passwd", "/lib64/ld-linux-x86-64.so.2")
                    .doesNotContainKeys("/bin/sh", "/bin/busybox");
            assertThat(local.files().containsKey(ImageLayout.CHROOT))
                    .as("chroot in %s", c)
                    .isEqualTo(ImageLayout.runsChroot(c));
        }
        assertThat(bottomTwo).as("digests of the base and java-runtime layers").hasSize(1);
    }

    @Test
    void theBusyboxImageHasAShell() throws IOException {
        OciArchiveContents busybox =
                OciArchiveContents.read(images.get(LocalImages.BUSYBOX_NAME).archive());
        assertThat(busybox.reference()).isEqualTo(BusyboxImage.REF);
        assertThat(busybox.files()).containsKey("/bin/busybox");
        assertThat(busybox.entrypoint())
                .as("no entrypoint: a pod's command or args replace the default")
                .isEmpty();
        assertThat(busybox.cmd()).isEqualTo(BusyboxImage.CMD);
    }

    private static void sameBytes(
            SoftAssertions soft,
            OciArchiveContents local,
            String imagePath,
            Path source,
            String where)
            throws IOException {
        OciArchiveContents.FileInfo f = local.files().get(imagePath);
        soft.assertThat(f).as("%s in %s", imagePath, where).isNotNull();
        if (f != null) {
            soft.assertThat(f.sha256())
                    .as("bytes of %s in %s (from %s)", imagePath, where, source)
                    .isEqualTo(OciArchiveContents.sha256(source));
        }
    }

    private static String env(OciArchiveContents image, String key) {
        return image.env().stream()
                .filter(e -> e.startsWith(key + "="))
                .map(e -> e.substring(key.length() + 1))
                .findFirst()
                .orElse(null);
    }
}
