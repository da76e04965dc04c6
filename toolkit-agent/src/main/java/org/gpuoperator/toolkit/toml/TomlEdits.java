package org.gpuoperator.toolkit.toml;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.toolkit.toml.TomlLayout.Entry;
import org.gpuoperator.toolkit.toml.TomlLayout.Kind;

/**
 * Minimal text edits on TOML: change one value, add one key, remove our tables. Everything else
 * keeps its bytes. Every result is re-validated by the caller before it is written.
 */
public final class TomlEdits {

    private TomlEdits() {}

    /**
     * Sets {@code path} to {@code rawValue} (TOML text, e.g. {@code "\"nvidia\""}). An existing
     * value is replaced in place, keeping indentation and any trailing comment; a new key goes next
     * to its siblings.
     */
    public static String set(String text, List<String> path, String rawValue) {
        TomlLayout layout = TomlLayout.scan(text);
        Optional<Entry> existing = layout.key(path);
        if (existing.isPresent()) {
            Entry e = existing.get();
            return text.substring(0, e.valueStart()) + rawValue + text.substring(e.valueEnd());
        }
        List<String> parent = path.subList(0, path.size() - 1);
        if (parent.isEmpty()) {
            // A top-level key must come before the first table header.
            Optional<Entry> lastTop =
                    layout.entries().stream()
                            .filter(e -> e.kind() == Kind.KEY_VALUE && e.tablePath().isEmpty())
                            .reduce((a, b) -> b);
            String line = TomlText.key(path.getFirst()) + " = " + rawValue;
            return lastTop.map(e -> insertLine(text, e.end(), line))
                    .orElseGet(() -> insertLine(text, 0, line));
        }
        List<Entry> siblings =
                layout.keysUnder(parent).stream()
                        .filter(e -> e.tablePath().size() <= parent.size())
                        .toList();
        if (!siblings.isEmpty()) {
            // After the last sibling in the same block, written relative to that block's header.
            Entry first = siblings.getFirst();
            Entry anchor =
                    siblings.stream()
                            .filter(s -> s.tablePath().equals(first.tablePath()))
                            .reduce((a, b) -> b)
                            .orElseThrow();
            String line =
                    anchor.indent(text)
                            + TomlText.dotted(path.subList(anchor.tablePath().size(), path.size()))
                            + " = "
                            + rawValue;
            return insertLine(text, anchor.end(), line);
        }
        Optional<Entry> header = layout.table(parent);
        if (header.isPresent()) {
            String indent = header.get().indent(text);
            return insertLine(
                    text,
                    header.get().end(),
                    indent
                            + (indent.isEmpty() ? "" : "  ")
                            + TomlText.key(path.getLast())
                            + " = "
                            + rawValue);
        }
        return appendBlock(
                text,
                (text.isEmpty() || text.endsWith("\n\n") ? "" : "\n")
                        + TomlText.header(parent)
                        + "\n"
                        + TomlText.key(path.getLast())
                        + " = "
                        + rawValue
                        + "\n");
    }

    /** Removes the key/value line at {@code path}, if present. */
    public static String remove(String text, List<String> path) {
        return TomlLayout.scan(text)
                .key(path)
                .map(e -> text.substring(0, e.start()) + text.substring(e.end()))
                .orElse(text);
    }

    /** Removes every table header (with its block) and key at or below {@code prefix}. */
    public static String removeTree(String text, List<String> prefix) {
        TomlLayout layout = TomlLayout.scan(text);
        List<int[]> spans = new ArrayList<>();
        for (Entry e : layout.entries()) {
            if (!TomlLayout.startsWith(e.path(), prefix)) {
                continue;
            }
            if (e.kind() == Kind.KEY_VALUE) {
                if (!TomlLayout.startsWith(e.tablePath(), prefix)) {
                    spans.add(new int[] {e.start(), e.end()});
                }
            } else {
                spans.add(new int[] {e.start(), trimmedBlockEnd(layout, e)});
            }
        }
        spans.sort(Comparator.comparingInt((int[] a) -> a[0]).reversed());
        StringBuilder sb = new StringBuilder(text);
        for (int[] span : spans) {
            sb.delete(span[0], span[1]);
        }
        return sb.toString();
    }

    /**
     * Removes the text between a begin marker line and an end marker line (both included), if both
     * are there.
     */
    public static String removeMarked(String text, String beginLine, String endLine) {
        int b = text.indexOf(beginLine);
        if (b < 0) {
            return text;
        }
        int e = text.indexOf(endLine, b);
        if (e < 0) {
            return text;
        }
        int end = e + endLine.length();
        if (end < text.length() && text.charAt(end) == '\n') {
            end++;
        }
        return text.substring(0, b) + text.substring(end);
    }

    /** Appends a block at the end, after a newline if the text does not end with one. */
    public static String appendBlock(String text, String block) {
        if (text.isEmpty() || text.endsWith("\n")) {
            return text + block;
        }
        return text + "\n" + block;
    }

    private static String insertLine(String text, int offset, String line) {
        boolean needBreak = offset > 0 && text.charAt(offset - 1) != '\n';
        return text.substring(0, offset)
                + (needBreak ? "\n" : "")
                + line
                + (needBreak ? "" : "\n")
                + text.substring(offset);
    }

    /**
     * A header's block without the blank/comment lines at its end, which introduce the next table.
     */
    private static int trimmedBlockEnd(TomlLayout layout, Entry header) {
        String text = layout.text();
        int end = layout.blockEnd(header);
        if (end == text.length()) {
            return end;
        }
        int floor = header.end();
        for (Entry e : layout.entries()) {
            if (e.kind() == Kind.KEY_VALUE && e.start() >= header.start() && e.end() <= end) {
                floor = Math.max(floor, e.end());
            }
        }
        int cut = end;
        while (cut > floor) {
            int lineStart = text.lastIndexOf('\n', cut - 2) + 1;
            if (lineStart < floor) {
                break;
            }
            String line = text.substring(lineStart, cut).strip();
            if (!line.isEmpty() && !line.startsWith("#")) {
                break;
            }
            cut = lineStart;
        }
        return cut;
    }
}
