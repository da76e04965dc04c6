package org.gpuoperator.exporter.testing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser for the Prometheus text exposition format 0.0.4, written from the format's
 * specification as test tooling (no maintained Java parser resolves here). Anything the spec
 * forbids is an error with the line number: bad names, unescaped quotes, bad escapes, unknown TYPE,
 * TYPE after samples, a family split in two, duplicate series, values that are not floats.
 */
public final class PrometheusTextParser {

    public record Sample(String name, Map<String, String> labels, double value) {}

    public record Family(String name, String type, String help, List<Sample> samples) {}

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES =
            Set.of("counter", "gauge", "histogram", "summary", "untyped");

    private PrometheusTextParser() {}

    public static Map<String, Family> parse(String text) {
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> helps = new LinkedHashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        Set<String> closed = new HashSet<>();
        Set<String> seriesSeen = new HashSet<>();
        String currentFamily = null;
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("the last line must end with a line feed");
        }
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            int lineNo = i + 1;
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            String family;
            if (line.startsWith("#")) {
                String[] parts = line.split(" ", 4);
                if (parts.length >= 3
                        && (parts[1].equals("HELP") || parts[1].equals("TYPE"))
                        && parts[0].equals("#")) {
                    String name = parts[2];
                    require(METRIC_NAME.matcher(name).matches(), lineNo, "bad metric name " + name);
                    String rest = parts.length == 4 ? parts[3] : "";
                    family = name;
                    if (parts[1].equals("HELP")) {
                        require(!helps.containsKey(name), lineNo, "second HELP for " + name);
                        helps.put(name, unescapeHelp(rest, lineNo));
                    } else {
                        require(TYPES.contains(rest), lineNo, "unknown type '" + rest + "'");
                        require(!types.containsKey(name), lineNo, "second TYPE for " + name);
                        require(
                                !samples.containsKey(name),
                                lineNo,
                                "TYPE for " + name + " after its samples");
                        types.put(name, rest);
                    }
                } else {
                    continue; // a plain comment
                }
            } else {
                Sample s = parseSample(line, lineNo);
                family = familyOf(s.name(), types);
                String key = s.name() + new TreeMap<>(s.labels());
                require(seriesSeen.add(key), lineNo, "duplicate series " + key);
                samples.computeIfAbsent(family, k -> new ArrayList<>()).add(s);
            }
            if (!family.equals(currentFamily)) {
                require(
                        !closed.contains(family),
                        lineNo,
                        "lines of " + family + " are not grouped together");
                if (currentFamily != null) {
                    closed.add(currentFamily);
                }
                currentFamily = family;
            }
        }
        Map<String, Family> out = new LinkedHashMap<>();
        Set<String> names = new HashSet<>(types.keySet());
        names.addAll(helps.keySet());
        names.addAll(samples.keySet());
        for (String n : names) {
            out.put(
                    n,
                    new Family(
                            n,
                            types.getOrDefault(n, "untyped"),
                            helps.get(n),
                            List.copyOf(samples.getOrDefault(n, List.of()))));
        }
        return out;
    }

    private static String familyOf(String sampleName, Map<String, String> types) {
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (sampleName.endsWith(suffix)) {
                String base = sampleName.substring(0, sampleName.length() - suffix.length());
                String t = types.get(base);
                if ("histogram".equals(t) || "summary".equals(t)) {
                    return base;
                }
            }
        }
        return sampleName;
    }

    private static Sample parseSample(String line, int lineNo) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        require(METRIC_NAME.matcher(name).matches(), lineNo, "bad metric name '" + name + "'");
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                require(i < line.length(), lineNo, "unterminated label set");
                if (line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                require(eq > i, lineNo, "label without '='");
                String lname = line.substring(i, eq);
                require(
                        LABEL_NAME.matcher(lname).matches(),
                        lineNo,
                        "bad label name '" + lname + "'");
                require(!lname.startsWith("__"), lineNo, "reserved label name " + lname);
                i = eq + 1;
                require(
                        i < line.length() && line.charAt(i) == '"',
                        lineNo,
                        "label value must be quoted");
                i++;
                StringBuilder v = new StringBuilder();
                while (true) {
                    require(i < line.length(), lineNo, "unterminated label value");
                    char c = line.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        require(i < line.length(), lineNo, "dangling escape");
                        char e = line.charAt(i++);
                        switch (e) {
                            case '\\' -> v.append('\\');
                            case '"' -> v.append('"');
                            case 'n' -> v.append('\n');
                            default ->
                                    throw new IllegalArgumentException(
                                            "line " + lineNo + ": bad escape \\" + e);
                        }
                    } else {
                        v.append(c);
                    }
                }
                require(
                        labels.put(lname, v.toString()) == null,
                        lineNo,
                        "label " + lname + " twice");
                require(i < line.length(), lineNo, "unterminated label set");
                if (line.charAt(i) == ',') {
                    i++;
                } else {
                    require(line.charAt(i) == '}', lineNo, "expected ',' or '}' after a label");
                }
            }
        }
        require(
                i < line.length() && line.charAt(i) == ' ',
                lineNo,
                "expected a space before the value");
        String[] rest = line.substring(i + 1).split(" ");
        require(rest.length == 1 || rest.length == 2, lineNo, "expected 'value [timestamp]'");
        double value = parseValue(rest[0], lineNo);
        if (rest.length == 2) {
            try {
                Long.parseLong(rest[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + lineNo + ": bad timestamp " + rest[1]);
            }
        }
        return new Sample(name, labels, value);
    }

    private static double parseValue(String s, int lineNo) {
        switch (s) {
            case "NaN":
                return Double.NaN;
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                require(
                        s.matches("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?"),
                        lineNo,
                        "bad value " + s);
                return Double.parseDouble(s);
        }
    }

    private static String unescapeHelp(String s, int lineNo) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                require(i + 1 < s.length(), lineNo, "dangling escape in HELP");
                char e = s.charAt(++i);
                switch (e) {
                    case '\\' -> b.append('\\');
                    case 'n' -> b.append('\n');
                    default ->
                            throw new IllegalArgumentException(
                                    "line " + lineNo + ": bad escape in HELP \\" + e);
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static void require(boolean ok, int lineNo, String what) {
        if (!ok) {
            throw new IllegalArgumentException("line " + lineNo + ": " + what);
        }
    }
}
