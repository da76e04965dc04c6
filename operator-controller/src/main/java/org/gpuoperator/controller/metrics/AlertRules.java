package org.gpuoperator.controller.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/**
 * The alert rules on this operator's and its exporter's metrics: the rule groups of
 * deploy/prometheus/gpu-operator-rules.yaml, which the build bundles unchanged (the one copy of
 * their text), read once.
 */
public final class AlertRules {

    public static final String FILE = "gpu-operator-rules.yaml";
    static final String RESOURCE = "/org/gpuoperator/controller/metrics/" + FILE;

    private AlertRules() {}

    /** The file's {@code groups}, as Prometheus reads them: each a map of name and rules. */
    public static List<Object> groups() {
        return Holder.GROUPS;
    }

    /** Loaded on first use: the file is part of this release, so a bad one is a build error. */
    private static final class Holder {
        static final List<Object> GROUPS = load();
    }

    private static List<Object> load() {
        try (InputStream in = AlertRules.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        FILE + ": missing from the classpath (" + RESOURCE + ")");
            }
            Map<?, ?> file = new ObjectMapper(new YAMLFactory()).readValue(in, Map.class);
            if (!(file.get("groups") instanceof List<?> groups) || groups.isEmpty()) {
                throw new IllegalStateException(FILE + ": no groups");
            }
            return List.<Object>copyOf(groups);
        } catch (IOException e) {
            throw new IllegalStateException(FILE + ": cannot read: " + e.getMessage(), e);
        }
    }
}
