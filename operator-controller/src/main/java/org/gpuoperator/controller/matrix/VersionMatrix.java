package org.gpuoperator.controller.matrix;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The supported versions of this operator release: one range per component, and per driver branch
 * the CUDA version it brings and the Kubernetes and kernel versions it supports. Read from {@link
 * #RESOURCE} (in the repository: {@code
 * operator-controller/src/main/resources/org/gpuoperator/controller/matrix/version-matrix.yaml}).
 */
public record VersionMatrix(
        String source,
        VersionRange operator,
        VersionRange toolkit,
        VersionRange kubernetes,
        VersionRange cuda,
        VersionRange driver,
        List<DriverBranch> branches) {

    public static final String RESOURCE = "/org/gpuoperator/controller/matrix/version-matrix.yaml";
    public static final String FILE = "version-matrix.yaml";

    /**
     * @param branch the driver's major version (580 for 580.65.06)
     * @param cuda the newest CUDA version the branch's driver supports
     */
    public record DriverBranch(
            int branch, Version cuda, VersionRange kubernetes, VersionRange kernel) {}

    public Optional<DriverBranch> branch(int major) {
        return branches.stream().filter(b -> b.branch() == major).findFirst();
    }

    /** The matrix bundled with this release. */
    public static VersionMatrix load() {
        try (InputStream in = VersionMatrix.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        FILE + ": missing from the classpath (" + RESOURCE + ")");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), FILE);
        } catch (IOException e) {
            throw new IllegalStateException(FILE + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * @param source the file name, named in every error
     * @throws IllegalArgumentException with one line per problem, each {@code source:line: field:
     *     message}
     */
    public static VersionMatrix parse(String text, String source) {
        Reader r = new Reader(source);
        Node root;
        try {
            root = r.read(text);
        } catch (IOException | RuntimeException e) {
            String msg =
                    e.getMessage() == null
                            ? e.toString()
                            : e.getMessage().lines().findFirst().orElse("");
            throw new IllegalArgumentException(source + ": not valid YAML: " + msg, e);
        }
        if (!(root instanceof MapNode top)) {
            throw new IllegalArgumentException(
                    source
                            + ":"
                            + (root == null ? 1 : root.line())
                            + ": expected a mapping at the top");
        }
        r.keys(
                top,
                "",
                Set.of("operator", "toolkit", "kubernetes", "cuda", "driver", "driverBranches"));
        VersionRange operator = r.range(top, "", "operator");
        VersionRange toolkit = r.range(top, "", "toolkit");
        VersionRange kubernetes = r.range(top, "", "kubernetes");
        VersionRange cuda = r.range(top, "", "cuda");
        VersionRange driver = r.range(top, "", "driver");
        List<DriverBranch> branches = new ArrayList<>();
        Node list = r.required(top, "", "driverBranches");
        if (list != null && !(list instanceof ListNode)) {
            r.error(list, "driverBranches", "expected a list");
        } else if (list instanceof ListNode items) {
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < items.items().size(); i++) {
                String path = "driverBranches[" + i + "]";
                Node item = items.items().get(i);
                if (!(item instanceof MapNode m)) {
                    r.error(item, path, "expected a mapping");
                    continue;
                }
                r.keys(m, path + ".", Set.of("branch", "cuda", "kubernetes", "kernel"));
                Version branch = r.version(m, path + ".", "branch");
                if (branch != null && branch.parts().size() != 1) {
                    r.error(
                            m.values().get("branch"),
                            path + ".branch",
                            "a branch is one number, e.g. 580");
                    branch = null;
                }
                if (branch != null && !seen.add(branch.major())) {
                    r.error(
                            m.values().get("branch"),
                            path + ".branch",
                            "branch " + branch + " is listed twice");
                }
                Version branchCuda = r.version(m, path + ".", "cuda");
                VersionRange k8s = r.range(m, path + ".", "kubernetes");
                VersionRange kernel = r.range(m, path + ".", "kernel");
                if (branch != null && branchCuda != null && k8s != null && kernel != null) {
                    branches.add(new DriverBranch(branch.major(), branchCuda, k8s, kernel));
                }
            }
        }
        if (!r.errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", r.errors));
        }
        return new VersionMatrix(
                source, operator, toolkit, kubernetes, cuda, driver, List.copyOf(branches));
    }

    /** A YAML tree that keeps each value's line. */
    private sealed interface Node {
        int line();
    }

    private record MapNode(Map<String, Node> values, int line) implements Node {}

    private record ListNode(List<Node> items, int line) implements Node {}

    private record Scalar(String text, int line) implements Node {}

    private static final class Reader {
        final String source;
        final List<String> errors = new ArrayList<>();

        Reader(String source) {
            this.source = source;
        }

        Node read(String text) throws IOException {
            try (JsonParser p = new YAMLFactory().createParser(text)) {
                JsonToken t = p.nextToken();
                return t == null ? null : node(p);
            }
        }

        private Node node(JsonParser p) throws IOException {
            int line = line(p.currentTokenLocation());
            JsonToken t = p.currentToken();
            if (t == JsonToken.START_OBJECT) {
                Map<String, Node> values = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    int keyLine = line(p.currentTokenLocation());
                    p.nextToken();
                    if (values.put(key, node(p)) != null) {
                        errors.add(source + ":" + keyLine + ": " + key + ": the key is repeated");
                    }
                }
                return new MapNode(values, line);
            }
            if (t == JsonToken.START_ARRAY) {
                List<Node> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(node(p));
                }
                return new ListNode(items, line);
            }
            // the scalar as written: 1.30 stays 1.30, not the number 1.3
            return new Scalar(t == JsonToken.VALUE_NULL ? null : p.getText(), line);
        }

        private static int line(JsonLocation l) {
            return l == null ? 0 : l.getLineNr();
        }

        void error(Node at, String path, String message) {
            errors.add(source + ":" + (at == null ? 0 : at.line()) + ": " + path + ": " + message);
        }

        void keys(MapNode m, String prefix, Set<String> allowed) {
            for (var e : m.values().entrySet()) {
                if (!allowed.contains(e.getKey())) {
                    error(
                            e.getValue(),
                            prefix + e.getKey(),
                            "unknown key (known: "
                                    + String.join(", ", allowed.stream().sorted().toList())
                                    + ")");
                }
            }
        }

        Node required(MapNode m, String prefix, String key) {
            Node n = m.values().get(key);
            if (n == null) {
                error(m, prefix + key, "missing");
            }
            return n;
        }

        Version version(MapNode m, String prefix, String key) {
            Node n = required(m, prefix, key);
            if (n == null) {
                return null;
            }
            if (!(n instanceof Scalar s) || s.text() == null) {
                error(n, prefix + key, "expected a version");
                return null;
            }
            Optional<Version> v = Version.parse(s.text());
            if (v.isEmpty() || !s.text().trim().matches("\\d+(\\.\\d+)*")) {
                error(
                        n,
                        prefix + key,
                        "'" + s.text() + "' is not a version (digits and dots, e.g. 1.35)");
                return null;
            }
            return v.get();
        }

        VersionRange range(MapNode m, String prefix, String key) {
            Node n = required(m, prefix, key);
            if (n == null) {
                return null;
            }
            if (!(n instanceof MapNode r)) {
                error(n, prefix + key, "expected {min: ..., max: ...}");
                return null;
            }
            keys(r, prefix + key + ".", Set.of("min", "max"));
            Version min = version(r, prefix + key + ".", "min");
            Version max = version(r, prefix + key + ".", "max");
            if (min == null || max == null) {
                return null;
            }
            if (min.compare(max, max.parts().size()) > 0) {
                error(n, prefix + key, "min " + min + " is after max " + max);
                return null;
            }
            return new VersionRange(min, max);
        }
    }
}
