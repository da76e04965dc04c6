package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

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
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
        updateStrategy = updateStrategy == null || updateStrategy.isBlank() ? ROLLING_UPDATE : updateStrategy;
        maxUnavailable = maxUnavailable == null || maxUnavailable.isBlank() ? "1" : maxUnavailable;
    }

    /** Upstream Helm defaults: tolerate the GPU taint, run as system-node-critical, roll one node at a time. */
    public static DaemonSetSettings defaults() {
        Toleration gpuTaint = new Toleration("NoSchedule", "nvidia.com/gpu", "Exists", null, null);
        return new DaemonSetSettings(Map.of(), Map.of(), List.of(gpuTaint), "system-node-critical", ROLLING_UPDATE, "1");
    }
}
