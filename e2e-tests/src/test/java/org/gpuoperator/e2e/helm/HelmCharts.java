package org.gpuoperator.e2e.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Rendered manifests as parsed objects, keyed kind/namespace/name, for comparisons. */
public final class HelmCharts {

    private static final YAMLMapper YAML = new YAMLMapper();

    private HelmCharts() {}

    public static List<Map<String, Object>> parse(String yaml) throws IOException {
        List<Map<String, Object>> objects = new ArrayList<>();
        try (MappingIterator<Map<String, Object>> it = YAML.readerFor(Map.class).readValues(yaml)) {
            while (it.hasNext()) {
                Map<String, Object> o = it.next();
                if (o != null && !o.isEmpty()) {
                    objects.add((Map<String, Object>) numbersByValue(o));
                }
            }
        }
        return objects;
    }

    /**
     * Numbers compared by value: kubectl kustomize writes a CRD's {@code minimum: 0.0} as 0 (both
     * are the same JSON number to the API server).
     */
    @SuppressWarnings("unchecked")
    private static Object numbersByValue(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> copy = new java.util.LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, v) -> copy.put(k, numbersByValue(v)));
            return copy;
        }
        if (value instanceof List<?> l) {
            return l.stream().map(HelmCharts::numbersByValue).toList();
        }
        if (value instanceof Number n) {
            return new java.math.BigDecimal(n.toString()).stripTrailingZeros();
        }
        return value;
    }

    public static String key(Map<String, Object> o) {
        Map<String, Object> meta = at(o, "metadata");
        return o.get("kind") + "/" + meta.getOrDefault("namespace", "") + "/" + meta.get("name");
    }

    public static Map<String, Map<String, Object>> byKey(List<Map<String, Object>> objects) {
        Map<String, Map<String, Object>> m = new TreeMap<>();
        for (Map<String, Object> o : objects) {
            assertThat(m.put(key(o), o)).as("duplicate " + key(o)).isNull();
        }
        return m;
    }

    @SuppressWarnings("unchecked")
    public static <T> T at(Map<String, Object> o, String... path) {
        Object cur = o;
        for (String p : path) {
            cur = ((Map<String, Object>) cur).get(p);
        }
        return (T) cur;
    }
}
