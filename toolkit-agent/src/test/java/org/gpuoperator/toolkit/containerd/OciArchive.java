package org.gpuoperator.toolkit.containerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * A one-layer OCI image archive holding a static busybox, built locally: the only way to give CRI a
 * sandbox image without a registry. Its entrypoint sleeps, like a pause container.
 */
final class OciArchive {

    static final Path BUSYBOX = Path.of("/bin/busybox");

    private OciArchive() {}

    static boolean available() {
        return Files.isExecutable(BUSYBOX);
    }

    static Path build(Path work, String imageName) throws Exception {
        Path layerDir = work.resolve("layer");
        Files.createDirectories(layerDir.resolve("bin"));
        Files.copy(BUSYBOX, layerDir.resolve("bin/busybox"));
        Path layer = work.resolve("layer.tar");
        tar(layerDir, layer);
        Path oci = work.resolve("oci");
        Path blobs = oci.resolve("blobs/sha256");
        Files.createDirectories(blobs);
        String layerDigest = blob(blobs, Files.readAllBytes(layer));
        String config =
                """
                {"architecture":"amd64","os":"linux","config":{"Entrypoint":["/bin/busybox","sleep","3600"]},\
                "rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}"""
                        .formatted(layerDigest);
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
                "org.opencontainers.image.ref.name":"1"}}]}"""
                        .formatted(manifestDigest, manifest.length(), imageName));
        Files.writeString(oci.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        Path archive = work.resolve("image.tar");
        tar(oci, archive);
        return archive;
    }

    private static String blob(Path blobs, byte[] content) throws Exception {
        String digest =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        Files.write(blobs.resolve(digest), content);
        return digest;
    }

    private static void tar(Path dir, Path out) throws IOException, InterruptedException {
        ContainerdBinary.Run r =
                ContainerdBinary.run(
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
        if (r.exit() != 0) {
            throw new IOException("tar failed: " + r.err());
        }
    }
}
