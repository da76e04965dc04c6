package org.gpuoperator.e2e.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of a Grafana dashboard (its JSON model): every panel target's {@code expr}, rows'
 * panels included, its {@code label_values(...)} template variables, and the substitution of
 * variables into a query as Grafana does before it sends it. Pure.
 */
public final class DashboardQueries {

    /** One target of one panel. */
    public record Query(String panel, String expr) {}

    /** A template variable whose values are {@code label} of the series {@code match} selects. */
    public record LabelValuesVariable(String name, String match, String label) {}

    /**
     * Grafana's built-in interval variables, as they come out for a short range over a scrape every
     * second or so: {@code $__rate_interval} a minute, which spans many samples.
     */
    public static final Map<String, String> BUILT_INS =
            Map.of(
                    "__rate_interval", "1m",
                    "__interval", "15s",
                    "__range", "5m",
                    "__interval_ms", "15000",
                    "__range_s", "300");

    private static final Pattern LABEL_VALUES =
            Pattern.compile("^\\s*label_values\\(\\s*(?:(.+?)\\s*,\\s*)?(\\w+)\\s*\\)\\s*$");

    private static final Pattern VARIABLE =
            Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\[\\[(\\w+)(?::\\w+)?]]|\\$(\\w+)");

    private DashboardQueries() {}

    /** Every target's expr, panel by panel (rows' nested panels too), in the file's order. */
    public static List<Query> queries(JsonNode dashboard) {
        List<Query> out = new ArrayList<>();
        collect(dashboard.path("panels"), out);
        return out;
    }

    private static void collect(JsonNode panels, List<Query> out) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText("");
                if (!expr.isBlank()) {
                    out.add(new Query(panel.path("title").asText(), expr));
                }
            }
            collect(panel.path("panels"), out);
        }
    }

    /**
     * The dashboard's query variables, each a {@code label_values([match,] label)} query (its
     * {@code query} as a string, or as {@code {query: ...}} in newer Grafana).
     *
     * @throws IllegalArgumentException for a query variable of another form, naming it
     */
    public static List<LabelValuesVariable> variables(JsonNode dashboard) {
        List<LabelValuesVariable> out = new ArrayList<>();
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (!"query".equals(v.path("type").asText())) {
                continue;
            }
            JsonNode q = v.path("query");
            String query = q.isObject() ? q.path("query").asText() : q.asText();
            Matcher m = LABEL_VALUES.matcher(query);
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "variable "
                                + v.path("name").asText()
                                + ": not a label_values(...) query: "
                                + query);
            }
            out.add(
                    new LabelValuesVariable(
                            v.path("name").asText(),
                            m.group(1) == null ? "{" + m.group(2) + "!=\"\"}" : m.group(1),
                            m.group(2)));
        }
        return out;
    }

    /**
     * The query with every {@code $name}, {@code ${name}}, {@code ${name:format}} and {@code
     * [[name]]} replaced by {@code values}' entry or a {@link #BUILT_INS} one.
     *
     * @throws IllegalArgumentException naming a variable that has no value
     */
    public static String substitute(String expr, Map<String, String> values) {
        Map<String, String> all = new LinkedHashMap<>(BUILT_INS);
        all.putAll(values);
        Matcher m = VARIABLE.matcher(expr);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name =
                    Optional.ofNullable(m.group(1))
                            .or(() -> Optional.ofNullable(m.group(2)))
                            .orElse(m.group(3));
            String value = all.get(name);
            if (value == null) {
                throw new IllegalArgumentException(
                        "no value for the variable $" + name + " in: " + expr);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * A multi-value variable with all its values selected, as Grafana's Prometheus data source
     * writes it into a regex matcher: {@code (a|b)}, each value's regex characters escaped (the
     * backslashes doubled for the PromQL string).
     */
    public static String allValuesRegex(List<String> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("a variable with no values selects nothing");
        }
        List<String> escaped = new ArrayList<>();
        for (String v : values) {
            escaped.add(v.replaceAll("([\\\\.^$|?*+()\\[\\]{}])", "\\\\\\\\$1"));
        }
        return "(" + String.join("|", escaped) + ")";
    }
}
