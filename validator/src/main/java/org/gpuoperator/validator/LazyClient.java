package org.gpuoperator.validator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.function.Supplier;

/**
 * The validator's Kubernetes client, built when a check or the report first needs it. Its first
 * round reports the driver and toolkit layers without the API, so building the client (its
 * configuration, trust store and HTTP client: ~90 ms of a start) is not on the way to the first
 * report; and a client that cannot be configured fails the step that needs it, which retries,
 * rather than the whole agent.
 */
final class LazyClient implements Supplier<KubernetesClient>, AutoCloseable {

    private final Supplier<KubernetesClient> build;
    private KubernetesClient client;
    private boolean closed;

    LazyClient() {
        this(() -> new KubernetesClientBuilder().build());
    }

    LazyClient(Supplier<KubernetesClient> build) {
        this.build = build;
    }

    @Override
    public synchronized KubernetesClient get() {
        if (closed) {
            throw new IllegalStateException("the validator is stopping: no new API calls");
        }
        if (client == null) {
            client = build.get();
        }
        return client;
    }

    /** Closes the client if one was built. */
    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
