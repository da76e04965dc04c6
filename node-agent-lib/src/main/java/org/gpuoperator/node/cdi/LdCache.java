package org.gpuoperator.node.cdi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * glibc's {@code /etc/ld.so.cache} in its current format ({@code glibc-ld.so.cache1.1}), alone or
 * after the old {@code ld.so-1.7.0} table that glibc before 2.32 wrote in front of it. Pure (bytes
 * in, entries out).
 *
 * <p>Layout (glibc {@code sysdeps/generic/dl-cache.h}): a 48-byte header (17 bytes magic, 3 bytes
 * version, uint32 entry count, uint32 string table size, uint8 flags, 3 pad, uint32 extension
 * offset, 3 × uint32 unused), then 24-byte entries (int32 flags, uint32 key offset, uint32 value
 * offset, uint32 OS version, uint64 hwcap), then the strings. Offsets count from the header's first
 * byte.
 */
public final class LdCache {

    static final String MAGIC_NEW = "glibc-ld.so.cache1.1";
    static final String MAGIC_OLD = "ld.so-1.7.0";
    static final int HEADER = 48;
    static final int ENTRY = 24;
    static final int OLD_HEADER = 16;
    static final int OLD_ENTRY = 12;

    /** x86-64 and AArch64 64-bit libraries (the architectures our node agents run on). */
    static final int FLAG_X8664_LIB64 = 0x0300;

    static final int FLAG_AARCH64_LIB64 = 0x0a00;
    static final int FLAG_ARCH_MASK = 0xff00;

    /**
     * One library the loader knows.
     *
     * @param soname e.g. {@code libcuda.so.1}
     * @param path e.g. {@code /usr/lib/x86_64-linux-gnu/libcuda.so.1}
     * @param flags glibc's entry flags (type and architecture)
     */
    public record Entry(String soname, String path, int flags) {
        public boolean lib64() {
            int arch = flags & FLAG_ARCH_MASK;
            return arch == FLAG_X8664_LIB64 || arch == FLAG_AARCH64_LIB64;
        }
    }

    private LdCache() {}

    /**
     * @param source names the file in errors
     * @throws CdiException when the bytes are not an ld.so.cache
     */
    public static List<Entry> parse(byte[] bytes, String source) throws CdiException {
        int start = 0;
        if (startsWith(bytes, 0, MAGIC_OLD)) {
            if (bytes.length < OLD_HEADER) {
                throw new CdiException(source + ": truncated ld.so.cache header");
            }
            long oldCount = Integer.toUnsignedLong(le(bytes).getInt(12));
            // the new table follows the old one, aligned for its 8-byte hwcap fields
            long end = OLD_HEADER + oldCount * OLD_ENTRY;
            start = (int) Math.min(Integer.MAX_VALUE, (end + 7) & ~7L);
        }
        if (!startsWith(bytes, start, MAGIC_NEW)) {
            throw new CdiException(source + ": not a glibc ld.so.cache (no " + MAGIC_NEW + ")");
        }
        if (bytes.length < start + HEADER) {
            throw new CdiException(source + ": truncated ld.so.cache header");
        }
        ByteBuffer b = le(bytes);
        long count = Integer.toUnsignedLong(b.getInt(start + 20));
        if (start + HEADER + count * ENTRY > bytes.length) {
            throw new CdiException(
                    source + ": ld.so.cache says " + count + " entries, file too short");
        }
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int e = start + HEADER + i * ENTRY;
            int flags = b.getInt(e);
            String key = string(bytes, start, b.getInt(e + 4), source);
            String value = string(bytes, start, b.getInt(e + 8), source);
            out.add(new Entry(key, value, flags));
        }
        return out;
    }

    private static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static String string(byte[] bytes, int base, int offset, String source)
            throws CdiException {
        long from = base + Integer.toUnsignedLong(offset);
        if (from >= bytes.length) {
            throw new CdiException(source + ": string offset " + offset + " past the end");
        }
        int end = (int) from;
        while (end < bytes.length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, (int) from, end - (int) from, StandardCharsets.UTF_8);
    }

    private static boolean startsWith(byte[] bytes, int at, String magic) {
        byte[] m = magic.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length < at + m.length) {
            return false;
        }
        for (int i = 0; i < m.length; i++) {
            if (bytes[at + i] != m[i]) {
                return false;
            }
        }
        return true;
    }
}
