package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A one-layer OCI image archive of the host's static busybox with every applet linked under {@code
 * /bin}: built locally because the simulated nodes have no registry. Serves as each node's sandbox
 * ("pause") image and as the stand-in for a pod image the node's containerd does not have. Its
 * default command (Cmd, no Entrypoint, so a pod's {@code command} or {@code args} replace it as
 * Kubernetes' semantics say) sleeps until SIGTERM: PID 1 ignores signals it has no handler for.
 * Hand-assembled rather than built with Jib, which cannot write the applets' symlinks.
 */
public final class BusyboxImage {

    /**
     * The sandbox image every simulated node's containerd is configured with ({@code
     * sandbox_image}).
     */
    public static final String REF = "localhost/gpuoperator/sim-busybox:1";

    /** Sleeps until SIGTERM or SIGINT, then exits 0. */
    public static final List<String> CMD =
            List.of("sh", "-c", "trap 'exit 0' TERM INT; sleep 2147483647 & wait");

    /** Bumped when the layout changes in a way {@link #ensure}'s input digest does not see. */
    static final String BUILDER_VERSION = "3";

    /**
     * The usual image PATH, not just {@code /bin}: as a stand-in for a workload image it must find
     * what a runtime mounts where a real image has it on its PATH ({@code nvidia-smi} at {@code
     * /usr/bin}).
     */
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    public static final Path BUSYBOX = Path.of("/bin/busybox");

    private BusyboxImage() {}

    public static boolean available() {
        return Files.isExecutable(BUSYBOX);
    }

    /**
     * The archive {@code <outDir>/busybox.oci.tar}, built unless the one there was built from the
     * same busybox binary and builder version.
     */
    public static LocalImages.LocalImage ensure(Path outDir)
            throws IOException, InterruptedException {
        Path archive = LocalImages.archiveIn(outDir, LocalImages.BUSYBOX_NAME);
        Path digestFile = outDir.resolve(LocalImages.BUSYBOX_NAME + ".inputs.sha256");
        String digest = BUILDER_VERSION + ":" + OciArchiveContents.sha256(BUSYBOX);
        if (Files.isRegularFile(archive)
                && Files.isRegularFile(digestFile)
                && Files.readString(digestFile).strip().equals(digest)) {
            return new LocalImages.LocalImage(LocalImages.BUSYBOX_NAME, REF, archive, true);
        }
        Files.createDirectories(outDir);
        Files.deleteIfExists(digestFile);
        Path work = Files.createTempDirectory(outDir, "busybox-");
        try {
            Files.move(build(work), archive, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } finally {
            try (var s = Files.walk(work)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.writeString(digestFile, digest + "\n");
        return new LocalImages.LocalImage(LocalImages.BUSYBOX_NAME, REF, archive, false);
    }

    /** Builds the archive under {@code work} (created) and returns its path. */
    public static Path build(Path work) throws IOException, InterruptedException {
        return build(work, REF, CMD, null, java.util.Map.of());
    }

    /**
     * Builds an image of the same busybox layer under {@code work} (created) and returns its path.
     *
     * @param ref the image's name in the archive
     * @param cmd its default command (Cmd)
     * @param workingDir its working directory, or null for {@code /}
     * @param scripts extra executable files (path in the image → content), in the same layer
     */
    static Path build(
            Path work,
            String ref,
            List<String> cmd,
            String workingDir,
            java.util.Map<String, String> scripts)
            throws IOException, InterruptedException {
        Path layerDir = work.resolve("layer");
        Path bin = layerDir.resolve("bin");
        Files.createDirectories(bin);
        for (String dir : List.of("tmp", "etc", "var/www", "proc", "sys", "dev")) {
            Files.createDirectories(layerDir.resolve(dir));
        }
        Files.copy(BUSYBOX, bin.resolve("busybox"));
        for (String applet : run(List.of(BUSYBOX.toString(), "--list")).split("\n")) {
            if (!applet.isBlank() && !applet.equals("busybox")) {
                Files.createSymbolicLink(bin.resolve(applet.trim()), Path.of("busybox"));
            }
        }
        Files.writeString(
                layerDir.resolve("etc/passwd"),
                "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n");
        Files.writeString(layerDir.resolve("etc/group"), "root:x:0:\nnogroup:x:65534:\n");
        for (var script : scripts.entrySet()) {
            Path file = layerDir.resolve(script.getKey().replaceFirst("^/+", ""));
            Files.createDirectories(file.getParent());
            Files.writeString(file, script.getValue());
            Files.setPosixFilePermissions(
                    file, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path layer = work.resolve("layer.tar");
        tar(layerDir, layer);
        Path oci = work.resolve("oci");
        Path blobs = oci.resolve("blobs/sha256");
        Files.createDirectories(blobs);
        String layerDigest = blob(blobs, Files.readAllBytes(layer));
        String config =
                """
                {"architecture":"amd64","os":"linux","config":{"Env":["PATH=%s"],"Cmd":%s%s},\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}"""
                        .formatted(
                                PATH,
                                new com.fasterxml.jackson.databind.ObjectMapper()
                                        .writeValueAsString(cmd),
                                workingDir == null ? "" : ",\"WorkingDir\":\"" + workingDir + "\"",
                                layerDigest);
        String configDigest = blob(blobs, config.getBytes(StandardCharsets.UTF_8));
        String manifest =
                """
                {"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},\
                "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}"""
                        .formatted(configDigest, config.length(), layerDigest, Files.size(layer));
        String manifestDigest = blob(blobs, manifest.getBytes(StandardCharsets.UTF_8));
        Files.writeString(
                oci.resolve("index.json"),
                """
                {"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"%s",\
                "org.opencontainers.image.ref.name":"%s"}}]}"""
                        .formatted(manifestDigest, manifest.length(), ref, ref));
        Files.writeString(oci.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Path archive = work.resolve("sim-busybox.tar");
        tar(oci, archive);
        return archive;
    }

    private static String blob(Path blobs, byte[] content) throws IOException {
        try {
            String digest =
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
            Files.write(blobs.resolve(digest), content);
            return digest;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void tar(Path dir, Path out) throws IOException, InterruptedException {
        run(
                List.of(
                        "tar",
                        "--owner=0",
                        "--group=0",
                        "--numeric-owner",
                        "-C",
                        dir.toString(),
                        "-cf",
                        out.toString(),
                        "."));
    }

    static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
