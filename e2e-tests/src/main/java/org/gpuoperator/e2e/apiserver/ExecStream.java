package org.gpuoperator.e2e.apiserver;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pure parts of {@code pods/exec} over WebSockets (the {@code channel.k8s.io} protocols that
 * kubectl speaks): what a request asks for, the frames that carry output, the closing status.
 */
public final class ExecStream {

    /** The only subprotocol kubectl 1.30+ offers for exec over WebSockets. */
    public static final String PROTOCOL_V5 = "v5.channel.k8s.io";

    public static final int STDIN = 0;
    public static final int STDOUT = 1;
    public static final int STDERR = 2;
    public static final int ERROR = 3;

    /** Output is sent in messages of at most this many bytes (a channel byte each). */
    static final int CHUNK = 32 * 1024;

    private ExecStream() {}

    /**
     * The exec options of a query string ({@code command} repeats, one argument each).
     *
     * @param container null when the request names none
     */
    public record Request(
            List<String> command,
            String container,
            boolean stdin,
            boolean stdout,
            boolean stderr,
            boolean tty) {

        public static Request parse(String rawQuery) {
            List<String> command = new ArrayList<>();
            Map<String, String> single = new LinkedHashMap<>();
            if (rawQuery != null) {
                for (String kv : rawQuery.split("&")) {
                    if (kv.isEmpty()) {
                        continue;
                    }
                    int eq = kv.indexOf('=');
                    String k =
                            URLDecoder.decode(
                                    eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
                    String v =
                            eq < 0
                                    ? ""
                                    : URLDecoder.decode(
                                            kv.substring(eq + 1), StandardCharsets.UTF_8);
                    if (k.equals("command")) {
                        command.add(v);
                    } else {
                        single.put(k, v);
                    }
                }
            }
            String container = single.get("container");
            return new Request(
                    List.copyOf(command),
                    container == null || container.isEmpty() ? null : container,
                    flag(single, "stdin"),
                    flag(single, "stdout"),
                    flag(single, "stderr"),
                    flag(single, "tty"));
        }

        private static boolean flag(Map<String, String> q, String name) {
            String v = q.get(name);
            return v != null && (v.equals("true") || v.equals("1"));
        }
    }

    /**
     * The messages that carry {@code data} on {@code channel}: each starts with the channel byte;
     * none for no data.
     */
    public static List<byte[]> frames(int channel, byte[] data) {
        List<byte[]> out = new ArrayList<>();
        for (int from = 0; from < data.length; from += CHUNK) {
            int to = Math.min(data.length, from + CHUNK);
            byte[] m = new byte[1 + to - from];
            m[0] = (byte) channel;
            System.arraycopy(data, from, m, 1, to - from);
            out.add(m);
        }
        return out;
    }

    /** The channel and the payload of one message (an empty message has neither). */
    public static int channel(byte[] message) {
        if (message.length == 0) {
            throw new IllegalArgumentException("an exec stream message needs a channel byte");
        }
        return message[0] & 0xff;
    }

    public static byte[] payload(byte[] message) {
        return Arrays.copyOfRange(message, 1, message.length);
    }

    /**
     * The {@code metav1.Status} the error channel carries at the end: Success, or the kubelet's
     * NonZeroExitCode failure whose ExitCode cause kubectl exits with.
     */
    public static Map<String, Object> status(int exitCode, List<String> command) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("metadata", Map.of());
        if (exitCode == 0) {
            s.put("status", "Success");
            return s;
        }
        s.put("status", "Failure");
        s.put(
                "message",
                "command terminated with non-zero exit code: error executing command "
                        + "["
                        + String.join(" ", command)
                        + "], exit code "
                        + exitCode);
        s.put("reason", "NonZeroExitCode");
        s.put(
                "details",
                Map.of(
                        "causes",
                        List.of(
                                Map.of(
                                        "reason",
                                        "ExitCode",
                                        "message",
                                        String.valueOf(exitCode)))));
        return s;
    }

    /**
     * The error channel's message for a failure that is not the command's exit (a runtime error).
     */
    public static Map<String, Object> failure(String message) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("metadata", Map.of());
        s.put("status", "Failure");
        s.put("message", message);
        return s;
    }

    /** The message that carries a status on the error channel. */
    public static byte[] statusFrame(Map<String, Object> status) {
        byte[] json = Json.write(status).getBytes(StandardCharsets.UTF_8);
        byte[] m = new byte[json.length + 1];
        m[0] = (byte) ERROR;
        System.arraycopy(json, 0, m, 1, json.length);
        return m;
    }
}
