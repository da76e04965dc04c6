package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.validator.report.CheckResult;

/**
 * Runs one workload pod to its end through the API server: removes a leftover of the same name,
 * creates it, polls until it finished or the timeout passed, and deletes it.
 */
public final class WorkloadRunner {

    private final Supplier<KubernetesClient> client;
    private final Duration poll;

    public WorkloadRunner(Supplier<KubernetesClient> client, Duration poll) {
        this.client = client;
        this.poll = poll;
    }

    public CheckResult run(Pod pod, Duration timeout) throws InterruptedException {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        try {
            deleteAndWait(ns, name, timeout);
            client.get().pods().inNamespace(ns).resource(pod).create();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                Pod current = client.get().pods().inNamespace(ns).withName(name).get();
                if (current == null) {
                    return CheckResult.failed("pod " + name + " was deleted before it finished");
                }
                if (PodOutcome.finished(current)) {
                    return PodOutcome.of(current, events(ns, name));
                }
                if (System.nanoTime() - deadline > 0) {
                    CheckResult still = PodOutcome.of(current, events(ns, name));
                    return CheckResult.failed(
                            "not finished after " + timeout.toSeconds() + "s: " + still.reason());
                }
                Thread.sleep(poll.toMillis());
            }
        } catch (KubernetesClientException e) {
            return CheckResult.failed("pod " + name + ": " + e.getMessage());
        } finally {
            try {
                deleteNow(ns, name);
            } catch (KubernetesClientException ignored) {
                // the next run removes it before creating its own
            }
        }
    }

    /** A pod's delete with no grace period, as {@code kubectl delete --grace-period=0} sends it. */
    private static final Map<String, Object> DELETE_NOW =
            Map.of("apiVersion", "v1", "kind", "DeleteOptions", "gracePeriodSeconds", 0);

    /**
     * Deletes pod {@code name} at once; one already gone is no error. A raw request: fabric8's
     * delete reads the API server's answer back as a {@code KubernetesResource}, which builds the
     * registry of all its model classes at the first use (~30-40 ms of CPU by async-profiler, on
     * the way to the check's result), for an answer nobody reads.
     */
    private void deleteNow(String ns, String name) {
        try {
            client.get().raw("/api/v1/namespaces/" + ns + "/pods/" + name, "DELETE", DELETE_NOW);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
        }
    }

    private List<Event> events(String ns, String pod) {
        return client.get().v1().events().inNamespace(ns).list().getItems().stream()
                .filter(
                        e ->
                                e.getInvolvedObject() != null
                                        && pod.equals(e.getInvolvedObject().getName())
                                        && "Pod".equals(e.getInvolvedObject().getKind()))
                .toList();
    }

    private void deleteAndWait(String ns, String name, Duration timeout)
            throws InterruptedException {
        if (client.get().pods().inNamespace(ns).withName(name).get() == null) {
            return;
        }
        deleteNow(ns, name);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (client.get().pods().inNamespace(ns).withName(name).get() != null) {
            if (System.nanoTime() - deadline > 0) {
                throw new KubernetesClientException("a previous pod " + name + " is still there");
            }
            Thread.sleep(poll.toMillis());
        }
    }
}
