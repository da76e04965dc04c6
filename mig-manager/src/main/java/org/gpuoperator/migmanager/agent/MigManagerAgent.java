package org.gpuoperator.migmanager.agent;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.gpuoperator.migmanager.reconcile.MigLabels;
import org.gpuoperator.migmanager.reconcile.MigReconciler;
import org.gpuoperator.migmanager.reconcile.MigStep;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.labels.OwnNodeInformer;

/**
 * Runs {@link MigReconciler} on its own thread: at start, whenever the node's {@value
 * MigLabels#CONFIG} label changes (an informer on the agent's own Node), and every {@code resync}
 * to retry a refused change (GPU pods gone, a GPU healed). Requests that arrive during a reconcile
 * fold into one more run after it.
 */
public final class MigManagerAgent implements AutoCloseable {

    private final KubernetesClient client;
    private final String nodeName;
    private final MigReconciler reconciler;
    private final Duration resync;
    private final EventLog log;
    private final ScheduledExecutorService worker =
            Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "mig-reconcile");
                        t.setDaemon(true);
                        return t;
                    });
    private final AtomicBoolean queued = new AtomicBoolean();
    private final AtomicBoolean reconciledOnce = new AtomicBoolean();
    private volatile MigStep lastStep;
    private String lastLabel;
    private boolean seen;
    private SharedIndexInformer<GenericKubernetesResource> informer;

    public MigManagerAgent(
            KubernetesClient client,
            String nodeName,
            MigReconciler reconciler,
            Duration resync,
            EventLog log) {
        this.client = client;
        this.nodeName = nodeName;
        this.reconciler = reconciler;
        this.resync = resync;
        this.log = log;
    }

    public void start() {
        request();
        informer = OwnNodeInformer.inform(client, nodeName, this::onNode);
        worker.scheduleWithFixedDelay(
                this::request, resync.toMillis(), resync.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Our own label writes also come back as updates: only a change of the ask counts. */
    private synchronized void onNode(ObjectMeta node) {
        Map<String, String> labels = node.getLabels();
        String label = labels == null ? null : labels.get(MigLabels.CONFIG);
        if (seen && Objects.equals(label, lastLabel)) {
            return;
        }
        boolean first = !seen;
        seen = true;
        lastLabel = label;
        if (!first) {
            log.info("mig-config-requested", "config", label == null ? "(absent)" : label);
            request();
        }
    }

    private void request() {
        if (queued.compareAndSet(false, true)) {
            worker.execute(this::runOnce);
        }
    }

    private void runOnce() {
        queued.set(false);
        try {
            lastStep = reconciler.reconcile();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            // an API error: the next request (label change or resync) starts afresh
            log.error("reconcile-failed", "node", nodeName, "error", e.getMessage());
        }
        reconciledOnce.set(true);
    }

    /** Ready once the first reconcile has ended, whatever its outcome. */
    public boolean ready() {
        return reconciledOnce.get();
    }

    /** The step the last reconcile ended with, or null before the first. */
    public MigStep lastStep() {
        return lastStep;
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
        worker.shutdownNow();
        try {
            worker.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
