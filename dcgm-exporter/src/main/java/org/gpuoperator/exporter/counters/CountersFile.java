package org.gpuoperator.exporter.counters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads upstream dcgm-exporter's counters file: CSV lines {@code field, type, help}, {@code #}
 * comments, blank lines ignored, fields space-trimmed, a field may be double-quoted to hold a
 * comma. All-or-nothing: one malformed line rejects the whole file with its line number.
 */
public final class CountersFile {

    /** Shipped in the jar and used when no {@code --collectors} file is given. */
    public static final String DEFAULT_RESOURCE = "default-counters.csv";

    /**
     * What upstream accepts as a field name; anything else is a typo, not a field we merely cannot
     * read.
     */
    private static final Pattern DCGM_NAME = Pattern.compile("DCGM_(FI|EXP)_[A-Z0-9_]+");

    /**
     * @param source the file (or the built-in default), for messages
     * @param counters the fields that will be exported, in file order
     * @param skipped DCGM fields named in the file that this project cannot read
     */
    public record Parsed(String source, List<Counter> counters, List<Skipped> skipped) {
        public Parsed {
            counters = List.copyOf(counters);
            skipped = List.copyOf(skipped);
        }
    }

    /** A line naming a DCGM field this project cannot read. */
    public record Skipped(int line, String field) {}

    private CountersFile() {}

    public static Parsed read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new CountersFileException("counters file " + file + " does not exist");
        } catch (IOException e) {
            throw new CountersFileException(
                    "cannot read counters file " + file + ": " + e.getMessage());
        }
        return parse(file.toString(), text);
    }

    public static Parsed readDefault() {
        try (InputStream in = CountersFile.class.getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        "built-in " + DEFAULT_RESOURCE + " is missing from the jar");
            }
            return parse(
                    "built-in " + DEFAULT_RESOURCE,
                    new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read built-in " + DEFAULT_RESOURCE, e);
        }
    }

    /** Pure: parses the text of a counters file; {@code source} names it in errors. */
    public static Parsed parse(String source, String text) {
        List<Counter> counters = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            List<String> fields = splitCsv(line, source, lineNo);
            if (fields.size() != 3) {
                throw error(
                        source,
                        lineNo,
                        "expected 3 fields 'field, type, help' but found "
                                + fields.size()
                                + " in '"
                                + line
                                + "'");
            }
            String name = fields.get(0);
            String typeText = fields.get(1);
            String help = fields.get(2);
            if (!DCGM_NAME.matcher(name).matches()) {
                throw error(
                        source,
                        lineNo,
                        "'" + name + "' is not a DCGM field name (DCGM_FI_* or DCGM_EXP_*)");
            }
            CounterType type = CounterType.parse(typeText);
            if (type == null) {
                throw error(
                        source,
                        lineNo,
                        "unknown type '"
                                + typeText
                                + "' for "
                                + name
                                + " (expected gauge, counter, histogram, summary or label)");
            }
            Integer earlier = seen.putIfAbsent(name, lineNo);
            if (earlier != null) {
                throw error(source, lineNo, name + " is already defined on line " + earlier);
            }
            var field = DcgmField.byName(name);
            if (field.isEmpty()) {
                skipped.add(new Skipped(lineNo, name));
                continue;
            }
            if (field.get().isString() != (type == CounterType.LABEL)) {
                throw error(
                        source,
                        lineNo,
                        field.get().isString()
                                ? name
                                        + " is a string field: its type must be label, not "
                                        + type.csvName()
                                : name
                                        + " is a numeric field: type label is only for string fields");
            }
            counters.add(new Counter(field.get(), type, help, lineNo));
        }
        return new Parsed(source, counters, skipped);
    }

    /**
     * Splits one CSV record; a field in double quotes may contain commas, {@code ""} is a literal
     * quote.
     */
    static List<String> splitCsv(String line, String source, int lineNo) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int i = 0;
        while (true) {
            while (i < line.length() && line.charAt(i) == ' ') {
                i++;
            }
            if (i < line.length() && line.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < line.length()) {
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < line.length() && line.charAt(i) == '"') {
                            cur.append('"');
                            i++;
                        } else {
                            closed = true;
                            break;
                        }
                    } else {
                        cur.append(c);
                    }
                }
                if (!closed) {
                    throw error(source, lineNo, "unterminated quoted field in '" + line + "'");
                }
                while (i < line.length() && line.charAt(i) == ' ') {
                    i++;
                }
                if (i < line.length() && line.charAt(i) != ',') {
                    throw error(
                            source,
                            lineNo,
                            "unexpected text after a quoted field in '" + line + "'");
                }
            } else {
                while (i < line.length() && line.charAt(i) != ',') {
                    cur.append(line.charAt(i++));
                }
            }
            out.add(cur.toString().strip());
            cur.setLength(0);
            if (i >= line.length()) {
                return out;
            }
            i++; // the comma
        }
    }

    private static CountersFileException error(String source, int line, String what) {
        return new CountersFileException(source + ":" + line + ": " + what);
    }
}
