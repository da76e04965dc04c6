package org.gpuoperator.e2e.apiserver;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds {@code meta.k8s.io/v1 Table} answers (what {@code kubectl get} asks for) from stored
 * objects.
 */
public final class Tables {

    /** What each row carries besides its cells, from the {@code includeObject} query parameter. */
    public enum IncludeObject {
        NONE,
        METADATA,
        OBJECT;

        /** Metadata when absent, as on a real server; an unknown value is an error. */
        public static IncludeObject parse(String value) {
            if (value == null || value.isEmpty()) {
                return METADATA;
            }
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "none" -> NONE;
                case "metadata" -> METADATA;
                case "object" -> OBJECT;
                default ->
                        throw new IllegalArgumentException(
                                "includeObject must be None, Metadata or Object, not " + value);
            };
        }
    }

    private Tables() {}

    /**
     * True when an Accept header asks for a Table (any of its media types carries {@code
     * as=Table}).
     */
    public static boolean wantsTable(String accept) {
        if (accept == null) {
            return false;
        }
        for (String mediaType : accept.split(",")) {
            boolean table = false;
            boolean meta = false;
            for (String param : mediaType.split(";")) {
                String p = param.strip();
                table |= p.equals("as=Table");
                meta |= p.equals("g=meta.k8s.io");
            }
            if (table && meta) {
                return true;
            }
        }
        return false;
    }

    /**
     * A Table of {@code objects}: one row each.
     *
     * @param listMeta the list's metadata (resourceVersion, continue), copied as is; empty map for
     *     a single object
     */
    public static Map<String, Object> table(
            PrinterColumns printer,
            List<Map<String, Object>> objects,
            IncludeObject include,
            Instant now,
            Map<String, Object> listMeta) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> o : objects) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("cells", printer.cells(o, now));
            switch (include) {
                case OBJECT -> row.put("object", o);
                case METADATA -> row.put("object", partial(o));
                case NONE -> {}
            }
            rows.add(row);
        }
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("kind", "Table");
        t.put("apiVersion", "meta.k8s.io/v1");
        t.put("metadata", listMeta);
        t.put(
                "columnDefinitions",
                printer.columns().stream().map(PrinterColumns.Column::definition).toList());
        t.put("rows", rows);
        return t;
    }

    private static Map<String, Object> partial(Map<String, Object> o) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("kind", "PartialObjectMetadata");
        p.put("apiVersion", "meta.k8s.io/v1");
        p.put("metadata", Json.map(o, "metadata"));
        return p;
    }
}
