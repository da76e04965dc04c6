package org.gpuoperator.validator.report;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the validator knows about its node at one moment: one result per layer. Pure: the node
 * annotations, the metrics text and readiness all derive from it.
 */
public final class NodeReport {

    public static final String ANNOTATION = "nvidia.com/gpu-operator.validation";
    public static final String REASON_ANNOTATION = "nvidia.com/gpu-operator.validation-reason";

    /**
     * The validator pod that wrote the report: a report of an earlier pod (e.g. from before a
     * driver restart) is told apart from this pod's.
     */
    public static final String POD_ANNOTATION = "nvidia.com/gpu-operator.validation-pod";

    private final Map<Layer, CheckResult> results;

    /** Layers missing from {@code results} count as waiting for their turn. */
    public NodeReport(Map<Layer, CheckResult> results) {
        EnumMap<Layer, CheckResult> all = new EnumMap<>(Layer.class);
        for (Layer l : Layer.values()) {
            all.put(l, results.getOrDefault(l, CheckResult.waiting("not checked yet")));
        }
        this.results = Collections.unmodifiableMap(all);
    }

    public CheckResult result(Layer layer) {
        return results.get(layer);
    }

    /** {@code driver=ready toolkit=waiting cuda=waiting plugin=disabled}. */
    public String annotation() {
        StringBuilder sb = new StringBuilder();
        for (Layer l : Layer.values()) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(l.key()).append('=').append(results.get(l).state().text());
        }
        return sb.toString();
    }

    /**
     * The first check, in layer order, that failed or waits, and why: {@code driver: no usable host
     * driver: ...}. Empty when every enabled check is ready.
     */
    public Optional<String> reason() {
        for (Layer l : Layer.values()) {
            CheckResult r = results.get(l);
            if (r.state() == CheckState.FAILED || r.state() == CheckState.WAITING) {
                return Optional.of(l.key() + ": " + r.reason());
            }
        }
        return Optional.empty();
    }

    /** A check failed (rather than waiting for its turn or for something to appear). */
    public boolean failed() {
        return results.values().stream().anyMatch(r -> r.state() == CheckState.FAILED);
    }

    /** Every enabled (not disabled) check passed. */
    public boolean ready() {
        return results.values().stream()
                .allMatch(r -> r.state() == CheckState.READY || r.state() == CheckState.DISABLED);
    }

    /** The four readiness gauges in the Prometheus text format; disabled counts as 0. */
    public String metrics() {
        StringBuilder sb = new StringBuilder();
        for (Layer l : Layer.values()) {
            sb.append("# HELP ")
                    .append(l.metricName())
                    .append(" 1 when the ")
                    .append(l.key())
                    .append(" layer of this node validated, else 0.\n");
            sb.append("# TYPE ").append(l.metricName()).append(" gauge\n");
            sb.append(l.metricName())
                    .append(' ')
                    .append(results.get(l).isReady() ? 1 : 0)
                    .append('\n');
        }
        return sb.toString();
    }
}
