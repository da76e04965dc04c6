package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The pod writes of the driver upgrade: evictions through the Eviction API ({@code pods/eviction},
 * policy/v1), which honours PodDisruptionBudgets, and the deletion of the outdated driver pod.
 */
public interface PodEvictions {

    /** What an eviction request came to. */
    enum Outcome {
        /** Accepted: the pod is being deleted. */
        EVICTED,
        /** HTTP 429: a PodDisruptionBudget does not allow it now; retried on a later pass. */
        BLOCKED,
        /** The pod no longer exists. */
        GONE
    }

    Outcome evict(String namespace, String name);

    /** Deletes the pod; a pod already gone is not an error. */
    void delete(String namespace, String name);

    /** The real API: fabric8's {@code evict()} posts a policy/v1 Eviction and maps 429 to false. */
    static PodEvictions of(KubernetesClient client) {
        return new PodEvictions() {
            @Override
            public Outcome evict(String namespace, String name) {
                try {
                    return client.pods().inNamespace(namespace).withName(name).evict()
                            ? Outcome.EVICTED
                            : Outcome.BLOCKED;
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 404) {
                        return Outcome.GONE;
                    }
                    throw e;
                }
            }

            @Override
            public void delete(String namespace, String name) {
                client.pods().inNamespace(namespace).withName(name).delete();
            }
        };
    }
}
