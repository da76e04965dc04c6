package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Stable content hashes of desired objects, used to skip writes when nothing changed. */
public final class Hashing {

    private Hashing() {}

    /**
     * SHA-256 (first 16 hex digits) of the object's JSON form; fabric8 serialises fields in a fixed
     * order.
     */
    public static String of(Object value) {
        try {
            byte[] json = Serialization.asJson(value).getBytes(StandardCharsets.UTF_8);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }
}
