package org.gpuoperator.toolkit.simulated;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.JsonStrings;

/**
 * A small JSON reader and writer for the OCI spec: objects keep their key order, numbers keep their
 * exact text ({@link Num}), so a spec read and written again differs only where it was edited.
 * Written for start-up time: the runtime runs once per container create, and loading Jackson cost
 * it more than everything else together. Values: {@code Map<String, Object>}, {@code List<Object>},
 * {@code String}, {@code Boolean}, {@link Num}, {@link #NULL}. Pure. Public for the CDI hook
 * ({@code cdihook}), which reads the container's state and config as fast.
 */
public final class OciJson {

    /** A number as written. */
    public record Num(String text) {}

    static final Object NULL =
            new Object() {
                @Override
                public String toString() {
                    return "null";
                }
            };

    private final String s;
    private int i;

    private OciJson(String s) {
        this.s = s;
    }

    public static Object parse(String text) {
        OciJson p = new OciJson(text);
        p.ws();
        Object v = p.value();
        p.ws();
        if (p.i != text.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    private Object value() {
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{' -> {
                return object();
            }
            case '[' -> {
                return array();
            }
            case '"' -> {
                return string();
            }
            case 't' -> {
                return literal("true", Boolean.TRUE);
            }
            case 'f' -> {
                return literal("false", Boolean.FALSE);
            }
            case 'n' -> {
                return literal("null", NULL);
            }
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw error("unexpected '" + c + "'");
            }
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (peek('}')) {
            i++;
            return m;
        }
        while (true) {
            ws();
            if (!peek('"')) {
                throw error("expected a key");
            }
            String k = string();
            ws();
            expect(':');
            ws();
            m.put(k, value());
            ws();
            if (peek(',')) {
                i++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> a = new ArrayList<>();
        i++;
        ws();
        if (peek(']')) {
            i++;
            return a;
        }
        while (true) {
            ws();
            a.add(value());
            ws();
            if (peek(',')) {
                i++;
            } else {
                expect(']');
                return a;
            }
        }
    }

    private String string() {
        i++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (i >= s.length()) {
                throw error("unterminated string");
            }
            char e = s.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (i + 4 > s.length()) {
                        throw error("bad \\u escape");
                    }
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private Num number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String t = s.substring(start, i);
        if (!t.matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
            throw error("bad number " + t);
        }
        return new Num(t);
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) {
            throw error("unexpected '" + s.charAt(i) + "'");
        }
        i += word.length();
        return v;
    }

    private void ws() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private boolean peek(char c) {
        return i < s.length() && s.charAt(i) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + i);
    }

    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb);
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(Object v, StringBuilder sb) {
        if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) m).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(e.getKey(), sb);
                sb.append(':');
                write(e.getValue(), sb);
            }
            sb.append('}');
        } else if (v instanceof List<?> l) {
            sb.append('[');
            for (int k = 0; k < l.size(); k++) {
                if (k > 0) {
                    sb.append(',');
                }
                write(l.get(k), sb);
            }
            sb.append(']');
        } else if (v instanceof String str) {
            quote(str, sb);
        } else if (v instanceof Num n) {
            sb.append(n.text());
        } else if (v instanceof Boolean b) {
            sb.append(b);
        } else if (v == NULL) {
            sb.append("null");
        } else {
            throw new IllegalArgumentException("not a JSON value: " + v);
        }
    }

    static void quote(String str, StringBuilder sb) {
        JsonStrings.quote(str, sb);
    }
}
