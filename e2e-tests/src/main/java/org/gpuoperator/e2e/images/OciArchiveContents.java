package org.gpuoperator.e2e.images;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/** What an OCI image-layout tarball holds: its reference, config, and the files of each layer. */
public record OciArchiveContents(
        String reference,
        List<String> entrypoint,
        List<String> cmd,
        List<String> env,
        String user,
        String workingDirectory,
        List<String> layerDigests,
        Map<String, FileInfo> files) {

    /**
     * One regular file or directory of the image's file system, as the last layer that names it
     * leaves it.
     */
    public record FileInfo(String path, boolean directory, int mode, long size, String sha256) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    public static OciArchiveContents read(Path archive) throws IOException {
        Map<String, byte[]> blobs = new HashMap<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(Files.newInputStream(archive))) {
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                if (e.isFile()) {
                    blobs.put(e.getName().replaceFirst("^\\./", ""), tar.readAllBytes());
                }
            }
        }
        try {
            JsonNode index = JSON.readTree(need(blobs, "index.json", archive));
            JsonNode desc = index.path("manifests").get(0);
            JsonNode manifest = JSON.readTree(blob(blobs, desc.path("digest").asText(), archive));
            JsonNode config =
                    JSON.readTree(
                                    blob(
                                            blobs,
                                            manifest.path("config").path("digest").asText(),
                                            archive))
                            .path("config");
            List<String> layerDigests = new ArrayList<>();
            Map<String, FileInfo> files = new LinkedHashMap<>();
            for (JsonNode layer : manifest.path("layers")) {
                String digest = layer.path("digest").asText();
                layerDigests.add(digest);
                InputStream raw = new ByteArrayInputStream(blob(blobs, digest, archive));
                InputStream in =
                        layer.path("mediaType").asText().endsWith("gzip")
                                ? new GZIPInputStream(raw)
                                : raw;
                try (TarArchiveInputStream t = new TarArchiveInputStream(in)) {
                    for (TarArchiveEntry e; (e = t.getNextEntry()) != null; ) {
                        String path =
                                "/"
                                        + e.getName()
                                                .replaceFirst("^\\./", "")
                                                .replaceFirst("^/", "")
                                                .replaceFirst("/$", "");
                        files.put(
                                path,
                                new FileInfo(
                                        path,
                                        e.isDirectory(),
                                        e.getMode() & 07777,
                                        e.getSize(),
                                        e.isFile() ? sha256(t.readAllBytes()) : ""));
                    }
                }
            }
            return new OciArchiveContents(
                    desc.path("annotations").path("org.opencontainers.image.ref.name").asText(""),
                    strings(config.path("Entrypoint")),
                    strings(config.path("Cmd")),
                    strings(config.path("Env")),
                    config.path("User").asText(""),
                    config.path("WorkingDir").asText(""),
                    layerDigests,
                    files);
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    archive + ": not a readable OCI image layout: " + e.getMessage(), e);
        }
    }

    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(ImagePlan.sha256().digest(bytes));
    }

    public static String sha256(Path file) throws IOException {
        MessageDigest d = ImagePlan.sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                d.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static byte[] blob(Map<String, byte[]> blobs, String digest, Path archive)
            throws IOException {
        return need(blobs, "blobs/" + digest.replace(':', '/'), archive);
    }

    private static byte[] need(Map<String, byte[]> blobs, String name, Path archive)
            throws IOException {
        byte[] b = blobs.get(name);
        if (b == null) {
            throw new IOException(archive + ": no " + name);
        }
        return b;
    }
}
