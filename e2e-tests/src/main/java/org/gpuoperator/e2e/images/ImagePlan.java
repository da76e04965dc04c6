package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What one image holds, before any archive is written: its layers (image path → source file) and
 * its config.
 */
public record ImagePlan(
        String name,
        String reference,
        List<Layer> layers,
        List<String> entrypoint,
        Map<String, String> environment,
        String user,
        String workingDirectory,
        Map<String, String> labels) {

    /**
     * One file (or, with a directory source, an empty directory) at {@code imagePath} with octal
     * {@code mode}.
     */
    public record Entry(String imagePath, Path source, String mode) {}

    public record Layer(String name, List<Entry> entries) {}

    /**
     * The content hash of every input: config, layer names, image paths, modes and the bytes of
     * every source file. An archive built from the same digest is reused as is.
     */
    public String inputsDigest(String builderVersion) throws IOException {
        MessageDigest d = sha256();
        update(
                d,
                "builder="
                        + builderVersion
                        + "\nref="
                        + reference
                        + "\nentrypoint="
                        + entrypoint
                        + "\nenv="
                        + environment
                        + "\nuser="
                        + user
                        + "\nworkdir="
                        + workingDirectory
                        + "\nlabels="
                        + labels
                        + "\n");
        byte[] buf = new byte[1 << 16];
        for (Layer layer : layers) {
            update(d, "layer " + layer.name() + "\n");
            for (Entry e : layer.entries()) {
                update(d, e.imagePath() + " " + e.mode() + "\n");
                if (Files.isRegularFile(e.source())) {
                    try (InputStream in = Files.newInputStream(e.source())) {
                        for (int n; (n = in.read(buf)) > 0; ) {
                            d.update(buf, 0, n);
                        }
                    }
                }
            }
        }
        return HexFormat.of().formatHex(d.digest());
    }

    private static void update(MessageDigest d, String s) {
        d.update(s.getBytes(StandardCharsets.UTF_8));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
