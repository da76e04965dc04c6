package org.gpuoperator.e2e.apiserver;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code scale} subresource of Deployments, ReplicaSets and StatefulSets ({@code kubectl
 * scale}, autoscalers), which the mock does not have: it answered the workload itself, which
 * kubectl cannot read as an {@code autoscaling/v1 Scale}. Reads are the workload seen as a Scale;
 * writes set the workload's {@code spec.replicas}.
 */
public final class ScaleSubresource {

    /** The resources (apps/v1) that have the subresource. */
    public static final Set<String> SCALABLE = Set.of("deployments", "replicasets", "statefulsets");

    private ScaleSubresource() {}

    /** The workload as an {@code autoscaling/v1 Scale}. */
    public static Map<String, Object> scale(Map<String, Object> workload) {
        Map<String, Object> meta = Json.map(workload, "metadata");
        Map<String, Object> m = new LinkedHashMap<>();
        for (String k : java.util.List.of("name", "namespace", "uid", "resourceVersion")) {
            if (meta.get(k) != null) {
                m.put(k, meta.get(k));
            }
        }
        if (meta.get("creationTimestamp") != null) {
            m.put("creationTimestamp", meta.get("creationTimestamp"));
        }
        Map<String, Object> spec = Json.map(workload, "spec");
        Map<String, Object> status = Json.map(workload, "status");
        Map<String, Object> scale = new LinkedHashMap<>();
        scale.put("kind", "Scale");
        scale.put("apiVersion", "autoscaling/v1");
        scale.put("metadata", m);
        // an unset spec.replicas is kube-apiserver's default, 1
        scale.put("spec", Map.of("replicas", spec.get("replicas") instanceof Number n ? n : 1));
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("replicas", status.get("replicas") instanceof Number n ? n : 0);
        String selector = PrinterColumns.selector(Json.map(spec, "selector"));
        if (!selector.equals("<none>")) {
            st.put("selector", selector);
        }
        scale.put("status", st);
        return scale;
    }

    /**
     * The workload with the replicas a written Scale asks for.
     *
     * @throws JsonPatch.NotApplicable the Scale has no valid {@code spec.replicas} (kube: 422)
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> withReplicas(
            Map<String, Object> workload, Map<String, Object> scale) {
        Object replicas = Json.map(scale, "spec").get("replicas");
        if (!(replicas instanceof Number n) || n.longValue() < 0 || n.doubleValue() % 1 != 0) {
            throw new JsonPatch.NotApplicable(
                    "spec.replicas: Invalid value: "
                            + replicas
                            + ": must be greater than or equal to 0");
        }
        Map<String, Object> out = (Map<String, Object>) JsonPatch.copy(workload);
        Map<String, Object> spec =
                out.get("spec") instanceof Map<?, ?> s
                        ? (Map<String, Object>) s
                        : new LinkedHashMap<>();
        spec.put("replicas", n.intValue());
        out.put("spec", spec);
        return out;
    }
}
