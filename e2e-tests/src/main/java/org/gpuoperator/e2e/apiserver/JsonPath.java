package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The subset of JSONPath that printer columns use: {@code .a.b}, {@code .a[0].b}, {@code
 * .a['x.y/z']}, with or without braces ({@code {.status.state}}). Anything else is rejected when
 * compiled, so a CRD with a column we cannot evaluate fails loudly instead of showing empty cells.
 */
public final class JsonPath {

    private final String expression;
    private final List<Object> steps; // String keys and Integer indices

    private JsonPath(String expression, List<Object> steps) {
        this.expression = expression;
        this.steps = steps;
    }

    public static JsonPath compile(String expression) {
        if (expression == null || expression.isBlank()) {
            throw new IllegalArgumentException("empty JSONPath");
        }
        String e = expression.strip();
        if (e.startsWith("{") && e.endsWith("}")) {
            e = e.substring(1, e.length() - 1);
        }
        if (e.startsWith("$")) {
            e = e.substring(1);
        }
        List<Object> steps = new ArrayList<>();
        int i = 0;
        while (i < e.length()) {
            char c = e.charAt(i);
            if (c == '.') {
                int end = i + 1;
                while (end < e.length() && e.charAt(end) != '.' && e.charAt(end) != '[') {
                    end++;
                }
                String key = e.substring(i + 1, end);
                if (key.isEmpty()) {
                    throw unsupported(expression, "empty key at " + i);
                }
                steps.add(key);
                i = end;
            } else if (c == '[') {
                int end = e.indexOf(']', i);
                if (end < 0) {
                    throw unsupported(expression, "unclosed [");
                }
                String inside = e.substring(i + 1, end).strip();
                if ((inside.startsWith("'") && inside.endsWith("'")
                                || inside.startsWith("\"") && inside.endsWith("\""))
                        && inside.length() >= 2) {
                    steps.add(inside.substring(1, inside.length() - 1));
                } else if (inside.matches("\\d+")) {
                    steps.add(Integer.parseInt(inside));
                } else {
                    throw unsupported(expression, "[" + inside + "]");
                }
                i = end + 1;
            } else {
                throw unsupported(expression, "unexpected '" + c + "' at " + i);
            }
        }
        return new JsonPath(expression, List.copyOf(steps));
    }

    private static IllegalArgumentException unsupported(String expression, String why) {
        return new IllegalArgumentException(
                "unsupported JSONPath "
                        + expression
                        + ": "
                        + why
                        + " (supported: .field, [index], ['key'])");
    }

    /** The value at this path, or null when any step is missing. */
    public Object evaluate(Object root) {
        Object cur = root;
        for (Object step : steps) {
            if (step instanceof String key && cur instanceof Map<?, ?> m) {
                cur = m.get(key);
            } else if (step instanceof Integer idx && cur instanceof List<?> l) {
                cur = idx < l.size() ? l.get(idx) : null;
            } else {
                return null;
            }
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    @Override
    public String toString() {
        return expression;
    }
}
