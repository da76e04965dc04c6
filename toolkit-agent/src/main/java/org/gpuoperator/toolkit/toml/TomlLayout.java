package org.gpuoperator.toolkit.toml;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where things are in a TOML text: every table header and key/value line with its full key path and
 * character span. It lets us edit one value or add one table while every other byte of the file
 * stays as the admin wrote it (comments, order, quoting, blank lines). The text must already have
 * passed {@link TomlCheck}.
 */
public final class TomlLayout {

    public enum Kind {
        TABLE,
        ARRAY_TABLE,
        KEY_VALUE
    }

    /**
     * One header or key/value line.
     *
     * @param path table path (headers) or full key path = table path + dotted key (key/values)
     * @param tablePath for key/values: the path of the header they sit under
     * @param start offset of the line start
     * @param end offset just after the line end (after a multi-line value's last line)
     * @param valueStart offset of the value text (key/values only)
     * @param valueEnd offset after the value text (key/values only)
     */
    public record Entry(
            Kind kind,
            List<String> path,
            List<String> tablePath,
            int start,
            int end,
            int valueStart,
            int valueEnd) {
        public String indent(String text) {
            int i = start;
            while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
                i++;
            }
            return text.substring(start, i);
        }
    }

    private final String text;
    private final List<Entry> entries;

    private TomlLayout(String text, List<Entry> entries) {
        this.text = text;
        this.entries = List.copyOf(entries);
    }

    public String text() {
        return text;
    }

    public List<Entry> entries() {
        return entries;
    }

    /** The explicit header {@code [path]}, if the file has one. */
    public Optional<Entry> table(List<String> path) {
        return entries.stream()
                .filter(e -> e.kind == Kind.TABLE && e.path.equals(path))
                .findFirst();
    }

    /** The key/value line whose full path is {@code path}. */
    public Optional<Entry> key(List<String> path) {
        return entries.stream()
                .filter(e -> e.kind == Kind.KEY_VALUE && e.path.equals(path))
                .findFirst();
    }

    /** The raw text of a key's value, e.g. {@code "runc"} with its quotes. */
    public Optional<String> rawValue(List<String> path) {
        return key(path).map(e -> text.substring(e.valueStart, e.valueEnd));
    }

    /** Key/values at or below {@code prefix}, in file order. */
    public List<Entry> keysUnder(List<String> prefix) {
        return entries.stream()
                .filter(
                        e ->
                                e.kind == Kind.KEY_VALUE
                                        && startsWith(e.path, prefix)
                                        && e.path.size() > prefix.size())
                .toList();
    }

    /** Whether anything (a header or a key) exists at or below {@code prefix}. */
    public boolean hasAnythingUnder(List<String> prefix) {
        return entries.stream().anyMatch(e -> startsWith(e.path, prefix));
    }

    /** End of a header's block: the start of the next header, or the end of the text. */
    public int blockEnd(Entry header) {
        for (Entry e : entries) {
            if (e.start > header.start && e.kind != Kind.KEY_VALUE) {
                return e.start;
            }
        }
        return text.length();
    }

    /** 1-based line of an offset, for messages. */
    public int lineOf(int offset) {
        int line = 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    public static boolean startsWith(List<String> path, List<String> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    /** Scans valid TOML text. */
    public static TomlLayout scan(String text) {
        return new Scanner(text).scan();
    }

    private static final class Scanner {
        private final String s;
        private int pos;
        private final List<Entry> out = new ArrayList<>();
        private List<String> table = List.of();

        Scanner(String s) {
            this.s = s;
        }

        TomlLayout scan() {
            while (pos < s.length()) {
                int lineStart = pos;
                skipBlanks();
                if (pos >= s.length()) {
                    break;
                }
                char c = s.charAt(pos);
                if (c == '\n' || c == '\r' || c == '#') {
                    skipToNextLine();
                    continue;
                }
                if (c == '[') {
                    boolean array = pos + 1 < s.length() && s.charAt(pos + 1) == '[';
                    pos += array ? 2 : 1;
                    List<String> path = parseKey();
                    skipBlanks();
                    pos += array ? 2 : 1; // closing brackets
                    skipToNextLine();
                    table = path;
                    out.add(
                            new Entry(
                                    array ? Kind.ARRAY_TABLE : Kind.TABLE,
                                    path,
                                    List.of(),
                                    lineStart,
                                    pos,
                                    -1,
                                    -1));
                    continue;
                }
                List<String> key = parseKey();
                skipBlanks();
                pos++; // '='
                skipBlanks();
                int vs = pos;
                skipValue();
                int ve = pos;
                while (ve > vs && (s.charAt(ve - 1) == ' ' || s.charAt(ve - 1) == '\t')) {
                    ve--;
                }
                skipToNextLine();
                List<String> full = new ArrayList<>(table);
                full.addAll(key);
                out.add(
                        new Entry(
                                Kind.KEY_VALUE, List.copyOf(full), table, lineStart, pos, vs, ve));
            }
            return new TomlLayout(s, out);
        }

        private void skipBlanks() {
            while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
                pos++;
            }
        }

        /** Skips an optional comment and the line break. */
        private void skipToNextLine() {
            while (pos < s.length() && s.charAt(pos) != '\n') {
                pos++;
            }
            if (pos < s.length()) {
                pos++;
            }
        }

        private List<String> parseKey() {
            List<String> parts = new ArrayList<>();
            while (true) {
                skipBlanks();
                char c = s.charAt(pos);
                if (c == '"') {
                    parts.add(basicString());
                } else if (c == '\'') {
                    int end = s.indexOf('\'', pos + 1);
                    parts.add(s.substring(pos + 1, end));
                    pos = end + 1;
                } else {
                    int st = pos;
                    while (pos < s.length() && isBare(s.charAt(pos))) {
                        pos++;
                    }
                    parts.add(s.substring(st, pos));
                }
                skipBlanks();
                if (pos < s.length() && s.charAt(pos) == '.') {
                    pos++;
                    continue;
                }
                return List.copyOf(parts);
            }
        }

        private String basicString() {
            StringBuilder sb = new StringBuilder();
            pos++;
            while (s.charAt(pos) != '"') {
                char c = s.charAt(pos);
                if (c == '\\') {
                    char n = s.charAt(pos + 1);
                    switch (n) {
                        case 'n' -> sb.append('\n');
                        case 't' -> sb.append('\t');
                        case 'r' -> sb.append('\r');
                        case 'b' -> sb.append('\b');
                        case 'f' -> sb.append('\f');
                        case 'u' -> {
                            sb.append((char) Integer.parseInt(s.substring(pos + 2, pos + 6), 16));
                            pos += 4;
                        }
                        case 'U' -> {
                            sb.appendCodePoint(
                                    Integer.parseInt(s.substring(pos + 2, pos + 10), 16));
                            pos += 8;
                        }
                        default -> sb.append(n);
                    }
                    pos += 2;
                } else {
                    sb.append(c);
                    pos++;
                }
            }
            pos++;
            return sb.toString();
        }

        private static boolean isBare(char c) {
            return Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '-';
        }

        /** Moves past one value, however many lines it spans. */
        private void skipValue() {
            char c = s.charAt(pos);
            if (s.startsWith("\"\"\"", pos)) {
                skipMultiline("\"\"\"", true);
            } else if (s.startsWith("'''", pos)) {
                skipMultiline("'''", false);
            } else if (c == '"') {
                basicString();
            } else if (c == '\'') {
                pos = s.indexOf('\'', pos + 1) + 1;
            } else if (c == '[' || c == '{') {
                skipNested();
            } else {
                while (pos < s.length()
                        && s.charAt(pos) != '\n'
                        && s.charAt(pos) != '#'
                        && s.charAt(pos) != '\r') {
                    pos++;
                }
            }
        }

        private void skipMultiline(String delim, boolean escapes) {
            pos += 3;
            while (!s.startsWith(delim, pos)) {
                pos += escapes && s.charAt(pos) == '\\' ? 2 : 1;
            }
            pos += 3;
            char q = delim.charAt(0);
            for (int i = 0; i < 2 && pos < s.length() && s.charAt(pos) == q; i++) {
                pos++;
            }
        }

        /** Arrays and inline tables: balanced brackets, skipping strings and comments. */
        private void skipNested() {
            int depth = 0;
            do {
                char c = s.charAt(pos);
                if (c == '[' || c == '{') {
                    depth++;
                    pos++;
                } else if (c == ']' || c == '}') {
                    depth--;
                    pos++;
                } else if (c == '"' || c == '\'') {
                    skipValue();
                } else if (c == '#') {
                    while (s.charAt(pos) != '\n') {
                        pos++;
                    }
                } else {
                    pos++;
                }
            } while (depth > 0);
        }
    }
}
