package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.gpuoperator.validator.report.CheckResult;

/**
 * Runs one workload pod to its end through the API server: removes a leftover of the same name,
 * creates it, polls until it finished or the timeout passed, and deletes it.
 *
 * <p>The pod is written and read as a generic resource ({@link AgentKubeClient#PODS}): a typed read
 * makes Jackson build its deserializer for fabric8's whole Pod model (~150 ms of CPU in a cold JVM,
 * on the way to the validator's first report), and {@link PodOutcome} needs only the pod's name and
 * a few status fields.
 */
public final class WorkloadRunner {

    private final Supplier<KubernetesClient> client;
    private final Duration poll;

    public WorkloadRunner(Supplier<KubernetesClient> client, Duration poll) {
        this.client = client;
        this.poll = poll;
    }

    public CheckResult run(GenericKubernetesResource pod, Duration timeout)
            throws InterruptedException {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        try {
            deleteAndWait(ns, name, timeout);
            pods(client.get(), ns).resource(pod).create();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                GenericKubernetesResource current = pod(ns, name).get();
                if (current == null) {
                    return CheckResult.failed("pod " + name + " was deleted before it finished");
                }
                if (PodOutcome.finished(current)) {
                    return PodOutcome.of(current, () -> events(ns, name));
                }
                if (System.nanoTime() - deadline > 0) {
                    CheckResult still = PodOutcome.of(current, () -> events(ns, name));
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

    /**
     * Deletes pod {@code name} at once, as {@code kubectl delete --grace-period=0} does; one
     * already gone is no error. The validator's client reads the answer without fabric8's
     * model-class search ({@code AgentKubeClient}), which a first read by kind would otherwise make
     * on the way to the check's result.
     */
    private void deleteNow(String ns, String name) {
        pod(ns, name).withGracePeriod(0).delete();
    }

    private Resource<GenericKubernetesResource> pod(String ns, String name) {
        return pods(client.get(), ns).withName(name);
    }

    private static NonNamespaceOperation<
                    GenericKubernetesResource,
                    GenericKubernetesResourceList,
                    Resource<GenericKubernetesResource>>
            pods(KubernetesClient client, String ns) {
        return client.genericKubernetesResources(AgentKubeClient.PODS).inNamespace(ns);
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
        if (pod(ns, name).get() == null) {
            return;
        }
        deleteNow(ns, name);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pod(ns, name).get() != null) {
            if (System.nanoTime() - deadline > 0) {
                throw new KubernetesClientException("a previous pod " + name + " is still there");
            }
            Thread.sleep(poll.toMillis());
        }
    }
}
