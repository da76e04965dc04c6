package org.gpuoperator.validator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.gpuoperator.node.labels.AgentKubeClient;

/**
 * The validator's Kubernetes client (the node agents' {@link AgentKubeClient}: typed reads and
 * writes, no search of fabric8's model classes), built on a second thread from the validator's
 * start while the first round checks the driver and toolkit layers, which need no API. A step that
 * needs the API waits only for what is left of the build (its configuration, trust store and HTTP
 * client: ~150 ms of CPU at a start, which a client built first put before the first check). A
 * build that fails fails the step that asked (a failed check, retried; a report-failed line), and
 * the next ask builds again, instead of ending the agent.
 */
final class BackgroundClient implements Supplier<KubernetesClient>, AutoCloseable {

    private final Supplier<KubernetesClient> build;
    private CompletableFuture<KubernetesClient> client;
    private boolean closed;

    BackgroundClient() {
        this(BackgroundClient::buildAndWarmUp);
    }

    /**
     * A client whose serialization readies, on another thread, the type of the validator's calls:
     * its workload pod and its Node (the GPU count, the report) are both read as generic resources.
     */
    private static KubernetesClient buildAndWarmUp() {
        KubernetesClient client = AgentKubeClient.build();
        AgentKubeClient.warmUpSerialization(client, List.of(GenericKubernetesResource.class));
        return client;
    }

    BackgroundClient(Supplier<KubernetesClient> build) {
        this.build = build;
        CompletableFuture<KubernetesClient> first = new CompletableFuture<>();
        this.client = first;
        Thread.ofPlatform().daemon().name("kubernetes-client").start(() -> buildInto(first));
    }

    private void buildInto(CompletableFuture<KubernetesClient> future) {
        try {
            future.complete(build.get());
        } catch (Throwable e) {
            future.completeExceptionally(e);
        }
    }

    @Override
    public synchronized KubernetesClient get() {
        if (closed) {
            throw new IllegalStateException("the validator is stopping: no new API calls");
        }
        if (client == null) { // the last build failed: this ask builds again
            client = new CompletableFuture<>();
            buildInto(client);
        }
        try {
            return client.join();
        } catch (CompletionException failed) {
            client = null;
            throw failed.getCause() instanceof RuntimeException e
                    ? e
                    : new IllegalStateException(failed.getCause());
        }
    }

    /** Closes the client, once it is built; a build that failed leaves nothing to close. */
    @Override
    public synchronized void close() {
        closed = true;
        if (client == null) {
            return;
        }
        try {
            client.join().close();
        } catch (CompletionException failed) {
            // nothing was built
        }
    }
}
