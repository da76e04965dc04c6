package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * JSON patch (RFC 6902, {@code application/json-patch+json}) and JSON merge patch (RFC 7386, {@code
 * application/merge-patch+json}) applied to a stored object, for the mock, which never answers a
 * JSON patch that does not apply. A patch that does not apply throws {@link NotApplicable} with the
 * text of the library kube-apiserver uses (evanphx/json-patch), which it relays in a 422.
 */
public final class JsonPatch {

    /** A well-formed patch whose operation does not apply to the document. */
    public static final class NotApplicable extends RuntimeException {
        NotApplicable(String message) {
            super(message);
        }
    }

    private static final String MISSING = ": missing value";

    private JsonPatch() {}

    /**
     * The document with every operation applied in order; {@code doc} is not changed.
     *
     * @throws IllegalArgumentException the patch is not a list of operations (kube-apiserver: 400)
     * @throws NotApplicable an operation does not apply (kube-apiserver: 422)
     */
    public static Map<String, Object> apply(Map<String, Object> doc, Object patch) {
        if (!(patch instanceof List<?> ops)) {
            throw new IllegalArgumentException(
                    "json: cannot unmarshal "
                            + (patch instanceof Map ? "object" : "value")
                            + " into Go value of type jsonpatch.Patch");
        }
        Object root = copy(doc);
        for (Object o : ops) {
            if (!(o instanceof Map<?, ?> op)) {
                throw new IllegalArgumentException(
                        "json: cannot unmarshal a non-object into Go value of type"
                                + " jsonpatch.Operation");
            }
            root = applyOne(root, op);
        }
        if (!(root instanceof Map<?, ?>)) {
            throw new NotApplicable("the patched document is not an object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) root;
        return result;
    }

    private static Object applyOne(Object root, Map<?, ?> op) {
        String kind = String.valueOf(op.get("op"));
        String path = op.get("path") instanceof String s ? s : null;
        if (path == null && !kind.equals("null")) {
            throw new NotApplicable(kind + " operation failed to decode path" + MISSING);
        }
        switch (kind) {
            case "add" -> {
                if (path.isEmpty()) {
                    return copy(op.get("value"));
                }
                Parent p = parent(root, path);
                if (p == null) {
                    throw new NotApplicable(
                            "add operation does not apply: doc is missing path: \""
                                    + path
                                    + "\""
                                    + MISSING);
                }
                p.add(copy(op.get("value")), "error in add for path: '" + path + "'");
            }
            case "remove" -> {
                Parent p = parent(root, path);
                if (p == null) {
                    throw new NotApplicable(
                            "remove operation does not apply: doc is missing path: \""
                                    + path
                                    + "\""
                                    + MISSING);
                }
                p.remove("error in remove for path: '" + path + "'");
            }
            case "replace" -> {
                if (path.isEmpty()) {
                    return copy(op.get("value"));
                }
                Parent p = parent(root, path);
                if (p == null) {
                    throw new NotApplicable(
                            "replace operation does not apply: doc is missing path: "
                                    + path
                                    + MISSING);
                }
                if (!p.exists()) {
                    throw new NotApplicable(
                            "replace operation does not apply: doc is missing key: "
                                    + path
                                    + MISSING);
                }
                p.set(copy(op.get("value")));
            }
            case "move", "copy" -> {
                String from = op.get("from") instanceof String s ? s : null;
                if (from == null) {
                    throw new NotApplicable(kind + " operation failed to decode from" + MISSING);
                }
                Parent source = parent(root, from);
                if (source == null) {
                    throw new NotApplicable(
                            kind
                                    + " operation does not apply: doc is missing from path: "
                                    + from
                                    + MISSING);
                }
                if (!source.exists()) {
                    throw new NotApplicable(
                            kind
                                    + " operation does not apply: doc is missing "
                                    + (kind.equals("move") ? "from key" : "from path")
                                    + ": "
                                    + from
                                    + MISSING);
                }
                Object value = copy(source.get());
                if (kind.equals("move")) {
                    source.remove("error in move for path: '" + from + "'");
                }
                if (path.isEmpty()) {
                    return value;
                }
                Parent target = parent(root, path);
                if (target == null) {
                    throw new NotApplicable(
                            kind
                                    + " operation does not apply: doc is missing destination path: "
                                    + path
                                    + MISSING);
                }
                target.add(value, "error in " + kind + " for path: '" + path + "'");
            }
            case "test" -> {
                Object actual;
                if (path.isEmpty()) {
                    actual = root;
                } else {
                    Parent p = parent(root, path);
                    if (p == null) {
                        throw new NotApplicable(
                                "test operation does not apply: is missing path: "
                                        + path
                                        + MISSING);
                    }
                    actual = p.exists() ? p.get() : null;
                }
                if (!sameJson(actual, op.get("value"))) {
                    throw new NotApplicable("testing value " + path + " failed: test failed");
                }
            }
            default -> throw new NotApplicable("Unexpected kind: " + kind);
        }
        return root;
    }

    /**
     * RFC 7386: maps merge, null removes, anything else replaces.
     *
     * @throws IllegalArgumentException the patch is not a JSON object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> merge(Map<String, Object> doc, Object patch) {
        if (!(patch instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("Invalid JSON Patch");
        }
        return (Map<String, Object>) mergeValue(doc, patch);
    }

    @SuppressWarnings("unchecked")
    private static Object mergeValue(Object target, Object patch) {
        if (!(patch instanceof Map<?, ?> p)) {
            return copy(patch);
        }
        Map<String, Object> out =
                target instanceof Map<?, ?> t
                        ? (Map<String, Object>) copy(t)
                        : new LinkedHashMap<>();
        p.forEach(
                (k, v) -> {
                    String key = String.valueOf(k);
                    if (v == null) {
                        out.remove(key);
                    } else {
                        out.put(key, mergeValue(out.get(key), v));
                    }
                });
        return out;
    }

    /** A pointer's last token and the container it lives in. */
    private record Parent(Object container, String key) {

        @SuppressWarnings("unchecked")
        Map<String, Object> map() {
            return (Map<String, Object>) container;
        }

        @SuppressWarnings("unchecked")
        List<Object> list() {
            return (List<Object>) container;
        }

        int index(boolean forAdd) {
            int size = list().size();
            int i;
            try {
                i = Integer.parseInt(key);
            } catch (NumberFormatException e) {
                throw new NotApplicable(
                        "Unable to access invalid index: " + key + ": invalid index referenced");
            }
            if (i < 0 || i > size || (!forAdd && i == size)) {
                throw new NotApplicable(
                        "Unable to access invalid index: " + i + ": invalid index referenced");
            }
            return i;
        }

        boolean exists() {
            if (container instanceof Map<?, ?> m) {
                return m.containsKey(key);
            }
            try {
                index(false);
                return true;
            } catch (NotApplicable e) {
                return false;
            }
        }

        Object get() {
            return container instanceof Map<?, ?> m ? m.get(key) : list().get(index(false));
        }

        void set(Object value) {
            if (container instanceof Map<?, ?>) {
                map().put(key, value);
            } else {
                list().set(index(false), value);
            }
        }

        void add(Object value, String context) {
            if (container instanceof Map<?, ?>) {
                map().put(key, value);
            } else if (key.equals("-")) {
                list().add(value);
            } else {
                try {
                    list().add(index(true), value);
                } catch (NotApplicable e) {
                    throw new NotApplicable(context + ": " + e.getMessage());
                }
            }
        }

        void remove(String context) {
            if (container instanceof Map<?, ?>) {
                if (!map().containsKey(key)) {
                    throw new NotApplicable(
                            context + ": Unable to remove nonexistent key: " + key + MISSING);
                }
                map().remove(key);
            } else {
                try {
                    list().remove(index(false));
                } catch (NotApplicable e) {
                    throw new NotApplicable(context + ": " + e.getMessage());
                }
            }
        }
    }

    /** The container of the pointer's last token, or null when a step on the way is missing. */
    private static Parent parent(Object root, String pointer) {
        if (!pointer.startsWith("/")) {
            return null;
        }
        String[] tokens = pointer.substring(1).split("/", -1);
        Object at = root;
        for (int i = 0; i < tokens.length - 1; i++) {
            String t = unescape(tokens[i]);
            if (at instanceof Map<?, ?> m) {
                at = m.get(t);
            } else if (at instanceof List<?> l) {
                try {
                    int idx = Integer.parseInt(t);
                    at = idx >= 0 && idx < l.size() ? l.get(idx) : null;
                } catch (NumberFormatException e) {
                    at = null;
                }
            } else {
                at = null;
            }
            if (at == null) {
                return null;
            }
        }
        if (!(at instanceof Map<?, ?> || at instanceof List<?>)) {
            return null;
        }
        return new Parent(at, unescape(tokens[tokens.length - 1]));
    }

    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }

    /** Equal as JSON values: numbers by value (1 and 1.0 are equal), maps and lists deeply. */
    static boolean sameJson(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return new java.math.BigDecimal(x.toString())
                            .compareTo(new java.math.BigDecimal(y.toString()))
                    == 0;
        }
        if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
            return x.size() == y.size()
                    && x.entrySet().stream()
                            .allMatch(
                                    e ->
                                            y.containsKey(e.getKey())
                                                    && sameJson(e.getValue(), y.get(e.getKey())));
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            if (x.size() != y.size()) {
                return false;
            }
            for (int i = 0; i < x.size(); i++) {
                if (!sameJson(x.get(i), y.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return Objects.equals(a, b);
    }

    /** A deep copy of parsed JSON, with mutable maps and lists. */
    static Object copy(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), copy(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(copy(x)));
            return out;
        }
        return v;
    }
}
