package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.List;

/**
 * The kubelet's CRI log format, one entry per line: {@code <RFC 3339 nano timestamp>
 * <stdout|stderr> <P|F> <text>}. {@code P} marks a partial line (the runtime split a long line),
 * {@code F} the last part of a line.
 */
public final class CriLog {

    private CriLog() {}

    public record Entry(String timestamp, String stream, boolean partial, String message) {}

    /** Parses one line; a line not in that format is an error naming it. */
    public static Entry parse(String line) {
        int a = line.indexOf(' ');
        int b = a < 0 ? -1 : line.indexOf(' ', a + 1);
        int c = b < 0 ? -1 : line.indexOf(' ', b + 1);
        if (a <= 0 || b < 0) {
            throw new IllegalArgumentException("not a CRI log line: " + abbreviate(line));
        }
        String stream = line.substring(a + 1, b);
        String tag = c < 0 ? line.substring(b + 1) : line.substring(b + 1, c);
        if (!stream.equals("stdout") && !stream.equals("stderr")) {
            throw new IllegalArgumentException(
                    "CRI log line with stream '" + stream + "': " + abbreviate(line));
        }
        // the tag may carry more flags after ':'; the first one is P or F
        String flag = tag.split(":", 2)[0];
        if (!flag.equals("P") && !flag.equals("F")) {
            throw new IllegalArgumentException(
                    "CRI log line with tag '" + tag + "': " + abbreviate(line));
        }
        return new Entry(
                line.substring(0, a), stream, flag.equals("P"), c < 0 ? "" : line.substring(c + 1));
    }

    /** The messages of a log file's lines, partial lines joined, in order. */
    public static List<String> messages(List<String> lines) {
        List<String> out = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        for (String line : lines) {
            if (line.isEmpty()) {
                continue;
            }
            Entry e = parse(line);
            pending.append(e.message());
            if (!e.partial()) {
                out.add(pending.toString());
                pending.setLength(0);
            }
        }
        if (!pending.isEmpty()) {
            out.add(pending.toString());
        }
        return out;
    }

    /** The last {@code n} lines, or all when {@code n} is null. */
    public static List<String> tail(List<String> lines, Integer n) {
        if (n == null || n >= lines.size()) {
            return lines;
        }
        if (n < 0) {
            throw new IllegalArgumentException("tailLines must not be negative: " + n);
        }
        return lines.subList(lines.size() - n, lines.size());
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }
}
