package org.gpuoperator.e2e.node;

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
 * A one-layer OCI image archive of the host's static busybox with every applet linked under {@code /bin}: built
 * locally because the simulated nodes have no registry. Serves as each node's sandbox ("pause") image and as the
 * stand-in for a pod image the node's containerd does not have. Its default command sleeps (no entrypoint, so a pod's
 * {@code args} replace it as Kubernetes' semantics say).
 */
public final class BusyboxImage {

    /** The sandbox image every simulated node's containerd is configured with ({@code sandbox_image}). */
    public static final String REF = "localhost/gpuoperator/sim-busybox:1";
    public static final Path BUSYBOX = Path.of("/bin/busybox");

    private BusyboxImage() {}

    public static boolean available() {
        return Files.isExecutable(BUSYBOX);
    }

    /** Builds the archive under {@code work} (created) and returns its path. */
    public static Path build(Path work) throws IOException, InterruptedException {
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
        Files.writeString(layerDir.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n");
        Files.writeString(layerDir.resolve("etc/group"), "root:x:0:\nnogroup:x:65534:\n");
        Path layer = work.resolve("layer.tar");
        tar(layerDir, layer);
        Path oci = work.resolve("oci");
        Path blobs = oci.resolve("blobs/sha256");
        Files.createDirectories(blobs);
        String layerDigest = blob(blobs, Files.readAllBytes(layer));
        String config = """
                {"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"],"Cmd":["sleep","2147483647"]},\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}""".formatted(layerDigest);
        String configDigest = blob(blobs, config.getBytes(StandardCharsets.UTF_8));
        String manifest = """
                {"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},\
                "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}"""
                .formatted(configDigest, config.length(), layerDigest, Files.size(layer));
        String manifestDigest = blob(blobs, manifest.getBytes(StandardCharsets.UTF_8));
        Files.writeString(oci.resolve("index.json"), """
                {"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",\
                "digest":"sha256:%s","size":%d,"annotations":{"io.containerd.image.name":"%s",\
                "org.opencontainers.image.ref.name":"1"}}]}""".formatted(manifestDigest, manifest.length(), REF));
        Files.writeString(oci.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Path archive = work.resolve("sim-busybox.tar");
        tar(oci, archive);
        return archive;
    }

    private static String blob(Path blobs, byte[] content) throws IOException {
        try {
            String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
            Files.write(blobs.resolve(digest), content);
            return digest;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void tar(Path dir, Path out) throws IOException, InterruptedException {
        run(List.of("tar", "--owner=0", "--group=0", "--numeric-owner", "-C", dir.toString(), "-cf", out.toString(), "."));
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
