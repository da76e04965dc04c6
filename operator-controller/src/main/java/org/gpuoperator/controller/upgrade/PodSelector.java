package org.gpuoperator.controller.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A Kubernetes label selector in its string form ({@code app=x,tier!=db,env in (a,b),!legacy}), as
 * in {@code waitForCompletion.podSelector} and {@code drain.podSelector}. Empty selects every pod.
 */
public final class PodSelector {

    private final String text;
    private final List<Predicate<Map<String, String>>> requirements;

    private PodSelector(String text, List<Predicate<Map<String, String>>> requirements) {
        this.text = text;
        this.requirements = requirements;
    }

    /** Selects every pod. */
    public static final PodSelector ALL = new PodSelector("", List.of());

    /**
     * @param field the policy field, named in the error
     * @throws IllegalArgumentException naming the field and the requirement it cannot read
     */
    public static PodSelector parse(String field, String text) {
        if (text == null || text.isBlank()) {
            return ALL;
        }
        List<Predicate<Map<String, String>>> reqs = new ArrayList<>();
        for (String req : splitTopLevel(text)) {
            reqs.add(requirement(field, req.trim()));
        }
        return new PodSelector(text.trim(), List.copyOf(reqs));
    }

    public boolean matches(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        return requirements.stream().allMatch(r -> r.test(l));
    }

    public boolean selectsAll() {
        return requirements.isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }

    /** Splits on commas outside parentheses. */
    private static List<String> splitTopLevel(String text) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    private static Predicate<Map<String, String>> requirement(String field, String req) {
        if (req.isEmpty()) {
            throw bad(field, req, "empty requirement");
        }
        if (req.startsWith("!")) {
            String key = key(field, req, req.substring(1).trim());
            return l -> !l.containsKey(key);
        }
        String[] setOps = {" notin ", " in "};
        for (String op : setOps) {
            int at = req.indexOf(op);
            if (at > 0) {
                String key = key(field, req, req.substring(0, at).trim());
                String rest = req.substring(at + op.length()).trim();
                if (!rest.startsWith("(") || !rest.endsWith(")")) {
                    throw bad(field, req, "values must be in parentheses");
                }
                Set<String> values =
                        Set.of(rest.substring(1, rest.length() - 1).split("\\s*,\\s*"));
                boolean in = op.equals(" in ");
                return l -> in == (l.containsKey(key) && values.contains(l.get(key)));
            }
        }
        for (String op : new String[] {"!=", "==", "="}) {
            int at = req.indexOf(op);
            if (at >= 0) {
                String key = key(field, req, req.substring(0, at).trim());
                String value = req.substring(at + op.length()).trim();
                if (value.contains("=") || value.contains("!")) {
                    throw bad(field, req, "one operator per requirement");
                }
                return op.equals("!=")
                        ? l -> !value.equals(l.get(key))
                        : l -> value.equals(l.get(key));
            }
        }
        String key = key(field, req, req);
        return l -> l.containsKey(key);
    }

    private static String key(String field, String req, String key) {
        if (!key.matches("([A-Za-z0-9.-]+/)?[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?")) {
            throw bad(field, req, "not a label key: '" + key + "'");
        }
        return key;
    }

    private static IllegalArgumentException bad(String field, String req, String why) {
        return new IllegalArgumentException(
                field + ": cannot read the label selector requirement '" + req + "': " + why);
    }
}
