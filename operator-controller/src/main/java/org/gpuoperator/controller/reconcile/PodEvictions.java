package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;

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

    /**
     * The real API: fabric8's {@code evict()} posts a policy/v1 Eviction and maps 429 to false.
     * Without retries: fabric8 retries a 429 with back-off (about 100 s by default), which would
     * stall the reconcile on every refusal; the next pass asks again instead.
     */
    static PodEvictions of(KubernetesClient client) {
        KubernetesClient once =
                client.newClient(
                                new RequestConfigBuilder(
                                                client.getConfiguration().getRequestConfig())
                                        .withRequestRetryBackoffLimit(0)
                                        .build())
                        .adapt(KubernetesClient.class);
        return new PodEvictions() {
            @Override
            public Outcome evict(String namespace, String name) {
                try {
                    return once.pods().inNamespace(namespace).withName(name).evict()
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
