package org.gpuoperator.e2e.apiserver;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;

/**
 * Small helpers over objects parsed as plain maps and lists (what the API server stores is JSON).
 */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static Map<String, Object> parse(String json) {
        try {
            return MAPPER.readValue(json, new TypeReference<>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getOriginalMessage(), e);
        }
    }

    /** YAML (a superset of JSON), as a server-side apply body may come. */
    static Object yaml(String text) {
        try {
            return new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
                    .readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not YAML: " + e.getOriginalMessage(), e);
        }
    }

    static String write(Object o) {
        try {
            return MAPPER.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> m, String key) {
        return m != null && m.get(key) instanceof Map<?, ?> v ? (Map<String, Object>) v : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Map<String, Object> m, String key) {
        return m != null && m.get(key) instanceof List<?> l
                ? l.stream()
                        .filter(Map.class::isInstance)
                        .map(x -> (Map<String, Object>) x)
                        .toList()
                : List.of();
    }

    static List<String> strings(Map<String, Object> m, String key) {
        return m != null && m.get(key) instanceof List<?> l
                ? l.stream().map(String::valueOf).toList()
                : List.of();
    }

    static String string(Map<String, Object> m, String key) {
        return m != null && m.get(key) != null ? String.valueOf(m.get(key)) : null;
    }

    static String name(Map<String, Object> obj) {
        return string(map(obj, "metadata"), "name");
    }
}
