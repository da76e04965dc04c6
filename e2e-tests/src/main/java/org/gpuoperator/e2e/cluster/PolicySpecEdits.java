package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Edits a ClusterPolicy's spec as untyped YAML, the way an admin's {@code kubectl edit} does:
 * fields this version does not model stay as they are.
 */
public final class PolicySpecEdits {

    private PolicySpecEdits() {}

    /**
     * Applies {@code edit} to the policy's spec as read now; on a 409 Conflict (the controller
     * wrote the status in between) reads it again and retries, as an admin does after {@code
     * kubectl edit} says the object has been modified.
     */
    @SuppressWarnings("unchecked")
    public static void edit(
            KubernetesClient client, String policy, Consumer<Map<String, Object>> edit) {
        for (int attempt = 1; ; attempt++) {
            try {
                client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                        .withName(policy)
                        .edit(
                                cp -> {
                                    edit.accept(
                                            (Map<String, Object>)
                                                    cp.getAdditionalProperties().get("spec"));
                                    return cp;
                                });
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    /** The spec section {@code name} (e.g. {@code toolkit}), created empty when absent. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> section(Map<String, Object> spec, String name) {
        return (Map<String, Object>) spec.computeIfAbsent(name, k -> new HashMap<String, Object>());
    }
}
