package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Edits a ClusterPolicy's spec as untyped YAML, the way an admin's {@code kubectl edit} does:
 * fields this version does not model stay as they are.
 */
public final class PolicySpecEdits {

    private PolicySpecEdits() {}

    @SuppressWarnings("unchecked")
    public static void edit(
            KubernetesClient client, String policy, Consumer<Map<String, Object>> edit) {
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .withName(policy)
                .edit(
                        cp -> {
                            edit.accept(
                                    (Map<String, Object>) cp.getAdditionalProperties().get("spec"));
                            return cp;
                        });
    }

    /** The spec section {@code name} (e.g. {@code toolkit}), created empty when absent. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> section(Map<String, Object> spec, String name) {
        return (Map<String, Object>) spec.computeIfAbsent(name, k -> new HashMap<String, Object>());
    }
}
