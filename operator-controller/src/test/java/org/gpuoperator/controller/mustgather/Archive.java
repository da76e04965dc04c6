package org.gpuoperator.controller.mustgather;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/** A tar.gz read back with an independent reader: entry name -> text. */
final class Archive {

    private Archive() {}

    static Map<String, String> read(InputStream tarGz) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(tarGz))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                out.put(e.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    static Map<String, String> of(Bundle bundle) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarGz.write(bundle, Instant.parse("2026-12-02T09:43:53Z"), bytes);
        return read(new ByteArrayInputStream(bytes.toByteArray()));
    }
}
