package org.gpuoperator.toolkit.toml;

import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.stream.Collectors;
import org.tomlj.TomlArray;
import org.tomlj.TomlTable;

/** Writing TOML fragments: keys, headers and values, quoted the way TOML wants. */
public final class TomlText {

    private TomlText() {}

    public static String key(String k) {
        return !k.isEmpty()
                        && k.chars()
                                .allMatch(
                                        c ->
                                                c < 128
                                                        && (Character.isLetterOrDigit(c)
                                                                || c == '_'
                                                                || c == '-'))
                ? k
                : string(k);
    }

    public static String dotted(List<String> path) {
        return path.stream().map(TomlText::key).collect(Collectors.joining("."));
    }

    public static String header(List<String> path) {
        return "[" + dotted(path) + "]";
    }

    public static String string(String v) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04X", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /**
     * Renders a value read by tomlj (used only where no original text exists, e.g. inside an inline
     * table).
     */
    public static String value(Object v) {
        return switch (v) {
            case String s -> string(s);
            case Boolean b -> b.toString();
            case Long l -> l.toString();
            case Double d ->
                    d.isNaN() ? "nan" : d.isInfinite() ? (d > 0 ? "inf" : "-inf") : d.toString();
            case TomlArray a ->
                    a.toList().stream()
                            .map(TomlText::value)
                            .collect(Collectors.joining(", ", "[", "]"));
            case TomlTable t ->
                    t.keySet().stream()
                            .map(k -> key(k) + " = " + value(t.get(List.of(k))))
                            .collect(Collectors.joining(", ", "{", "}"));
            case TemporalAccessor ta -> ta.toString();
            default -> throw new IllegalArgumentException("cannot render TOML value " + v);
        };
    }
}
