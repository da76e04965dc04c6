package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Secret;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Pure: what keeps Secret data out of the bundle. Two layers: a Secret is only ever written as its
 * name, type and keys ({@link #secretSummary}); and every value of every Secret read (decoded and
 * base64, and each long line of a multi-line value) is replaced wherever it appears in any file of
 * the bundle ({@link #scrub}), so a value that reached a container's env through a {@code
 * secretKeyRef} or {@code envFrom} and was logged, or was copied into a policy's env, is gone too.
 */
public final class Redaction {

    /** What a Secret's value becomes. */
    public static final String REDACTED = "<redacted>";

    /**
     * Values shorter than this are not searched for (a one-letter value would blank every such
     * letter); they are still never written from the Secret itself.
     */
    public static final int MIN_SCRUBBED_LENGTH = 4;

    /** A line of a multi-line value at least this long is searched for on its own. */
    static final int MIN_SCRUBBED_LINE = 16;

    private final List<Token> tokens;

    private record Token(String text, String replacement) {}

    private Redaction(List<Token> tokens) {
        this.tokens = tokens;
    }

    /** Nothing to scrub. */
    public static Redaction none() {
        return new Redaction(List.of());
    }

    /** Scrubs every value of these Secrets. */
    public static Redaction of(List<Secret> secrets) {
        Map<String, String> byText = new LinkedHashMap<>();
        for (Secret s : secrets) {
            String where =
                    "<redacted: secret "
                            + s.getMetadata().getNamespace()
                            + "/"
                            + s.getMetadata().getName();
            values(s)
                    .forEach(
                            (key, raw) -> {
                                String replacement = where + " key " + key + ">";
                                String b64 = Base64.getEncoder().encodeToString(raw);
                                add(byText, b64, replacement);
                                String text = utf8(raw);
                                if (text != null) {
                                    add(byText, text, replacement);
                                    add(byText, text.strip(), replacement);
                                    for (String line : text.split("\\R")) {
                                        if (line.strip().length() >= MIN_SCRUBBED_LINE) {
                                            add(byText, line.strip(), replacement);
                                        }
                                    }
                                }
                            });
        }
        List<Token> tokens = new ArrayList<>();
        byText.forEach((t, r) -> tokens.add(new Token(t, r)));
        // longest first: a value that contains another is replaced whole
        tokens.sort(Comparator.comparingInt((Token t) -> t.text().length()).reversed());
        return new Redaction(List.copyOf(tokens));
    }

    private static void add(Map<String, String> byText, String text, String replacement) {
        if (text.length() >= MIN_SCRUBBED_LENGTH) {
            byText.putIfAbsent(text, replacement);
        }
    }

    /** Every secret value in the text replaced. */
    public String scrub(String text) {
        String out = text;
        for (Token t : tokens) {
            if (out.contains(t.text())) {
                out = out.replace(t.text(), t.replacement());
            }
        }
        return out;
    }

    /** The number of values searched for. */
    public int size() {
        return tokens.size();
    }

    /** A Secret as the bundle shows it: name, namespace, type, keys; each value redacted. */
    public static Map<String, Object> secretSummary(Secret s) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", s.getMetadata().getName());
        out.put("namespace", s.getMetadata().getNamespace());
        out.put("type", s.getType());
        Map<String, String> data = new TreeMap<>();
        values(s).keySet().forEach(k -> data.put(k, REDACTED));
        out.put("data", data);
        return out;
    }

    /** Key -> raw bytes, from data (base64) and stringData. */
    private static Map<String, byte[]> values(Secret s) {
        Map<String, byte[]> out = new TreeMap<>();
        if (s.getData() != null) {
            s.getData()
                    .forEach(
                            (k, v) -> {
                                if (v != null) {
                                    out.put(k, decode(v));
                                }
                            });
        }
        if (s.getStringData() != null) {
            s.getStringData()
                    .forEach(
                            (k, v) -> {
                                if (v != null) {
                                    out.put(k, v.getBytes(StandardCharsets.UTF_8));
                                }
                            });
        }
        return out;
    }

    private static byte[] decode(String b64) {
        try {
            return Base64.getMimeDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            // not base64 after all: the text itself is the value to hide
            return b64.getBytes(StandardCharsets.UTF_8);
        }
    }

    private static String utf8(byte[] raw) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
