package org.gpuoperator.controller.mustgather;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a {@link Bundle} as a gzip-compressed POSIX tar (ustar, with a pax {@code path} record for
 * a name longer than ustar holds): regular files only, mode 0644, owned by root. No library: the
 * controller's image needs nothing more for these few lines.
 */
public final class TarGz {

    private static final int BLOCK = 512;

    private TarGz() {}

    public static void write(Bundle bundle, Instant mtime, OutputStream out) throws IOException {
        GZIPOutputStream gz = new GZIPOutputStream(out);
        for (Bundle.File f : bundle.files()) {
            String name = bundle.root() + "/" + f.path();
            byte[] data = f.content().getBytes(StandardCharsets.UTF_8);
            if (name.getBytes(StandardCharsets.UTF_8).length > 100) {
                byte[] pax = paxRecord("path", name);
                String paxName = "PaxHeaders/" + shortName(name);
                gz.write(header(paxName, pax.length, mtime, (byte) 'x'));
                gz.write(pax);
                pad(gz, pax.length);
                name = shortName(name);
            }
            gz.write(header(name, data.length, mtime, (byte) '0'));
            gz.write(data);
            pad(gz, data.length);
        }
        gz.write(new byte[2 * BLOCK]); // end of archive
        gz.finish();
    }

    /** The last 100 bytes' worth of the name: what a reader without pax support shows. */
    private static String shortName(String name) {
        String s = name;
        while (s.getBytes(StandardCharsets.UTF_8).length > 100) {
            s = s.substring(1);
        }
        return s;
    }

    /** {@code "<length> key=value\n"}, the length counting itself. */
    static byte[] paxRecord(String key, String value) {
        int body = (" " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8).length;
        int len = body + String.valueOf(body).length();
        if (String.valueOf(len).length() != String.valueOf(body).length()) {
            len = body + String.valueOf(len).length();
        }
        return (len + " " + key + "=" + value + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] header(String name, long size, Instant mtime, byte type) {
        byte[] h = new byte[BLOCK];
        put(h, 0, 100, name.getBytes(StandardCharsets.UTF_8));
        octal(h, 100, 8, 0644);
        octal(h, 108, 8, 0);
        octal(h, 116, 8, 0);
        octal(h, 124, 12, size);
        octal(h, 136, 12, mtime.getEpochSecond());
        for (int i = 148; i < 156; i++) {
            h[i] = ' '; // the checksum is computed with its own field as spaces
        }
        h[156] = type;
        put(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        put(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        put(h, 265, 32, "root".getBytes(StandardCharsets.US_ASCII));
        put(h, 297, 32, "root".getBytes(StandardCharsets.US_ASCII));
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        byte[] chk = String.format("%06o", sum).getBytes(StandardCharsets.US_ASCII);
        put(h, 148, 6, chk);
        h[154] = 0;
        h[155] = ' ';
        return h;
    }

    private static void octal(byte[] h, int off, int len, long value) {
        String s = Long.toOctalString(value);
        String padded = "0".repeat(len - 1 - s.length()) + s;
        put(h, off, len - 1, padded.getBytes(StandardCharsets.US_ASCII));
        h[off + len - 1] = 0;
    }

    private static void put(byte[] h, int off, int len, byte[] value) {
        System.arraycopy(value, 0, h, off, Math.min(len, value.length));
    }

    private static void pad(OutputStream out, long written) throws IOException {
        int rest = (int) (written % BLOCK);
        if (rest != 0) {
            out.write(new byte[BLOCK - rest]);
        }
    }
}
