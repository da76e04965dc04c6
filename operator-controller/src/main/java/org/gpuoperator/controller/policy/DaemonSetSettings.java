package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;

/** The ClusterPolicy's {@code daemonsets} section: settings common to every operand DaemonSet. */
public record DaemonSetSettings(
        Map<String, String> labels,
        Map<String, String> annotations,
        List<Toleration> tolerations,
        String priorityClassName,
        String updateStrategy,
        String maxUnavailable) {

    public static final String ROLLING_UPDATE = "RollingUpdate";
    public static final String ON_DELETE = "OnDelete";

    public DaemonSetSettings {
        // the policy's order, not Map.copyOf's (which differs from one JVM to the next)
        labels = ordered(labels);
        annotations = ordered(annotations);
        tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
        updateStrategy =
                updateStrategy == null || updateStrategy.isBlank()
                        ? ClusterPolicyDefaults.UPDATE_STRATEGY
                        : updateStrategy;
        maxUnavailable =
                maxUnavailable == null || maxUnavailable.isBlank()
                        ? ClusterPolicyDefaults.ROLLING_UPDATE_MAX_UNAVAILABLE
                        : maxUnavailable;
    }

    private static Map<String, String> ordered(Map<String, String> m) {
        return m == null
                ? Map.of()
                : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(m));
    }

    /**
     * For a policy without a {@code daemonsets} section; the values are {@link
     * ClusterPolicyDefaults}'.
     */
    public static DaemonSetSettings defaults() {
        return new DaemonSetSettings(
                Map.of(),
                Map.of(),
                ClusterPolicyDefaults.tolerations(),
                ClusterPolicyDefaults.PRIORITY_CLASS,
                ClusterPolicyDefaults.UPDATE_STRATEGY,
                ClusterPolicyDefaults.ROLLING_UPDATE_MAX_UNAVAILABLE);
    }
}
