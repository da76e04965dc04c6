package org.gpuoperator.controller.operand;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Stable content hashes of desired objects, used to skip writes when nothing changed. */
public final class Hashing {

    /**
     * fabric8's mapper with map entries sorted by key: a map's iteration order is not its content
     * (Map.copyOf's differs from one JVM to the next), so a restarted controller must not see a
     * changed template and roll every operand.
     */
    private static final ObjectMapper CANONICAL =
            Serialization.jsonMapper()
                    .copy()
                    .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private Hashing() {}

    /**
     * SHA-256 (first 16 hex digits) of the object's JSON form; fabric8 serialises fields in a fixed
     * order, and map entries are sorted by key.
     */
    public static String of(Object value) {
        try {
            byte[] json = canonicalJson(value).getBytes(StandardCharsets.UTF_8);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /** The JSON hashed: fabric8's form with map entries in key order. */
    static String canonicalJson(Object value) {
        try {
            return CANONICAL.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
