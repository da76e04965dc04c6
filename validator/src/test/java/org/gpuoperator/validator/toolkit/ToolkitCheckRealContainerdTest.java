package org.gpuoperator.validator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.CheckState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The toolkit check against a REAL private containerd: CRI Status, the handler list, and a
 * container run through CRI under a handler (runc stands in for nvidia here). Images are built
 * locally from the host's static busybox: no registry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ToolkitCheckRealContainerdTest {

    static final Path BUSYBOX = Path.of("/bin/busybox");
    static final String SANDBOX = "docker.io/library/validator-test-pause:1";
    static final String PASSES = "docker.io/library/validator-test-ok:1";
    static final String FAILS = "docker.io/library/validator-test-fail:1";

    Path dir;
    Process containerd;

    @BeforeAll
    void startContainerd() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "a private containerd needs root: skipped, not passed");
        assumeTrue(
                onPath("containerd") && onPath("ctr") && onPath("runc"),
                "containerd, ctr and runc must be installed: skipped, not passed");
        assumeTrue(
                Files.isExecutable(BUSYBOX),
                "busybox-static is not installed: skipped, not passed");
        dir = Files.createTempDirectory(Path.of("/tmp"), "val-"); // socket paths: 107 bytes max
        Files.createDirectories(dir.resolve("cni"));
        Path config = dir.resolve("config.toml");
        Files.writeString(
                config,
                """
                version = 2
                root = "%1$s/lib"
                state = "%1$s/run"
                [grpc]
                  address = "%1$s/ctd.sock"
                [ttrpc]
                  address = "%1$s/ctd.sock.ttrpc"
                [debug]
                  address = "%1$s/debug.sock"
                [plugins."io.containerd.grpc.v1.cri"]
                  restrict_oom_score_adj = true
                  sandbox_image = "%2$s"
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    conf_dir = "%1$s/cni"
                """
                        .formatted(dir, SANDBOX));
        containerd =
                new ProcessBuilder("containerd", "--config", config.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("containerd.log").toFile())
                        .start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!(Files.exists(socket()) && ctr("version") == 0)) {
            assertThat(containerd.isAlive()).as("containerd exited: %s", log()).isTrue();
            assertThat(Instant.now()).as("containerd did not answer: %s", log()).isBefore(deadline);
            Thread.sleep(100);
        }
        importImage(SANDBOX, List.of("/bin/busybox", "sleep", "3600"));
        importImage(PASSES, List.of("/bin/busybox", "sh", "-c", "exit 0", "--"));
        importImage(
                FAILS,
                List.of(
                        "/bin/busybox",
                        "sh",
                        "-c",
                        "echo nvidia-smi: not found >&2; exit 3",
                        "--"));
    }

    @AfterAll
    void stopContainerd() throws Exception {
        if (containerd != null) {
            containerd.destroy();
            if (!containerd.waitFor(15, TimeUnit.SECONDS)) {
                containerd.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        if (dir != null) {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
            try {
                Files.deleteIfExists(Path.of("/run/containerd/runc/k8s.io"));
            } catch (java.nio.file.DirectoryNotEmptyException inUse) {
                // another containerd's containers live there
            }
        }
    }

    Path socket() {
        return dir.resolve("ctd.sock");
    }

    ToolkitCheck check(String handler, String image) {
        return new ToolkitCheck(
                new ToolkitCheck.Settings(
                        socket(),
                        handler,
                        image,
                        ToolkitCheck.WORKLOAD_ARGS,
                        "node-a",
                        Duration.ofSeconds(60)));
    }

    @Test
    void aContainerThatExitsZeroUnderTheHandlerIsReady() {
        CheckResult r = check("runc", PASSES).run();
        assertThat(r.state()).as(r.reason()).isEqualTo(CheckState.READY);
    }

    @Test
    void anUnknownHandlerFailsNamingItAndTheRegisteredOnes() {
        CheckResult r = check("nvidia", PASSES).run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .startsWith(
                        "runtime handler \"nvidia\" is not registered with the runtime at "
                                + socket())
                .contains("registered: ")
                .contains("runc");
    }

    @Test
    void aContainerThatFailsIsFailedWithItsExitCode() {
        CheckResult r = check("runc", FAILS).run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason()).startsWith("container under handler \"runc\" exited 3");
    }

    @Test
    void anImageTheNodeDoesNotHaveFailsNamingIt() {
        CheckResult r = check("runc", "docker.io/library/absent:1").run();
        assertThat(r.reason())
                .isEqualTo("workload image docker.io/library/absent:1 is not on the node");
    }

    @Test
    void aSocketWithNoRuntimeFailsNamingIt() {
        Path none = dir.resolve("none.sock");
        CheckResult r =
                new ToolkitCheck(
                                new ToolkitCheck.Settings(
                                        none,
                                        "runc",
                                        PASSES,
                                        List.of(),
                                        "node-a",
                                        Duration.ofSeconds(5)))
                        .run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason()).startsWith("runtime at " + none);
    }

    int ctr(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ctr", "--address", socket().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    String log() {
        try {
            return Files.readString(dir.resolve("containerd.log"));
        } catch (IOException e) {
            return "";
        }
    }

    void importImage(String name, List<String> entrypoint) throws Exception {
        Path work = Files.createTempDirectory(dir, "img-");
        Path layerDir = work.resolve("layer");
        Files.createDirectories(layerDir.resolve("bin"));
        Files.createDirectories(layerDir.resolve("tmp"));
        Files.copy(BUSYBOX, layerDir.resolve("bin/busybox"));
        Path layer = work.resolve("layer.tar");
        tar(layerDir, layer);
        Path oci = work.resolve("oci");
        Path blobs = oci.resolve("blobs/sha256");
        Files.createDirectories(blobs);
        String layerDigest = blob(blobs, Files.readAllBytes(layer));
        StringBuilder ep = new StringBuilder("[");
        for (String e : entrypoint) {
            ep.append(ep.length() > 1 ? "," : "")
                    .append('"')
                    .append(e.replace("\"", "\\\""))
                    .append('"');
        }
        ep.append(']');
        String config =
                """
                {"architecture":"amd64","os":"linux","config":{"Entrypoint":%s},\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}"""
                        .formatted(ep, layerDigest);
        String configDigest = blob(blobs, config.getBytes(StandardCharsets.UTF_8));
        String manifest =
                """
                {"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},\
                "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}"""
                        .formatted(
                                configDigest,
                                config.getBytes(StandardCharsets.UTF_8).length,
                                layerDigest,
                                Files.size(layer));
        String manifestDigest = blob(blobs, manifest.getBytes(StandardCharsets.UTF_8));
        Files.writeString(
                oci.resolve("index.json"),
                """
                {"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"%s",\
                "org.opencontainers.image.ref.name":"1"}}]}"""
                        .formatted(manifestDigest, manifest.length(), name));
        Files.writeString(oci.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Path archive = work.resolve("image.tar");
        tar(oci, archive);
        assertThat(ctr("-n", "k8s.io", "images", "import", archive.toString()))
                .as("import %s", name)
                .isZero();
    }

    static String blob(Path blobs, byte[] content) throws Exception {
        String digest =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        Files.write(blobs.resolve(digest), content);
        return digest;
    }

    static void tar(Path from, Path out) throws Exception {
        Process p =
                new ProcessBuilder(
                                "tar",
                                "--owner=0",
                                "--group=0",
                                "--numeric-owner",
                                "-C",
                                from.toString(),
                                "-cf",
                                out.toString(),
                                ".")
                        .redirectErrorStream(true)
                        .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(output).isZero();
    }

    static boolean onPath(String exe) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }
}
