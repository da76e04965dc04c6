package org.gpuoperator.node.agent;

import java.io.PrintStream;
import java.time.Instant;

/**
 * One structured line per event, in logfmt: {@code ts=... level=info component=device-plugin
 * event=registered resource=nvidia.com/gpu}. Easy for a person to read and for a log pipeline to
 * parse.
 *
 * <p>Keys have one style, kebab-case like the event names ({@code health-port}); a key written in
 * camelCase or snake_case is printed in kebab-case, so a log query never needs to guess the
 * spelling.
 */
public final class EventLog {

    private final String component;
    private final PrintStream out;

    public EventLog(String component) {
        this(component, System.out);
    }

    public EventLog(String component, PrintStream out) {
        this.component = component;
        this.out = out;
    }

    public void info(String event, Object... keyValues) {
        log("info", event, keyValues);
    }

    public void warn(String event, Object... keyValues) {
        log("warn", event, keyValues);
    }

    public void error(String event, Object... keyValues) {
        log("error", event, keyValues);
    }

    private void log(String level, String event, Object... kv) {
        out.println(format(Instant.now(), level, component, event, kv));
    }

    /** Pure formatting, separate for tests. Keys and values alternate in {@code kv}. */
    static String format(Instant ts, String level, String component, String event, Object... kv) {
        if (kv.length % 2 != 0) {
            throw new IllegalArgumentException(
                    "key/value pairs expected, got " + kv.length + " items");
        }
        StringBuilder sb = new StringBuilder(96);
        sb.append("ts=")
                .append(ts)
                .append(" level=")
                .append(level)
                .append(" component=")
                .append(component)
                .append(" event=")
                .append(quote(event));
        for (int i = 0; i < kv.length; i += 2) {
            sb.append(' ')
                    .append(key(String.valueOf(kv[i])))
                    .append('=')
                    .append(quote(String.valueOf(kv[i + 1])));
        }
        return sb.toString();
    }

    /**
     * {@code previousDefault} and {@code pod_resources_socket} become {@code previous-default},
     * {@code pod-resources-socket}.
     */
    static String key(String k) {
        StringBuilder sb = new StringBuilder(k.length() + 4);
        for (int i = 0; i < k.length(); i++) {
            char c = k.charAt(i);
            if (c == '_' || c == ' ') {
                sb.append('-');
            } else if (Character.isUpperCase(c)) {
                if (i > 0
                        && sb.charAt(sb.length() - 1) != '-'
                        && !Character.isUpperCase(k.charAt(i - 1))) {
                    sb.append('-');
                }
                sb.append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    static String quote(String v) {
        boolean plain = !v.isEmpty();
        for (int i = 0; i < v.length() && plain; i++) {
            char c = v.charAt(i);
            plain = c > ' ' && c != '"' && c != '=' && c != '\\';
        }
        if (plain) {
            return v;
        }
        return '"' + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }
}
