package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * core/v1 Events about pods, as the kubelet and the scheduler record them: {@code kubectl describe
 * pod} lists them (involvedObject field selectors), {@code kubectl get events} shows type, reason,
 * object and message. Names are {@code <pod>.<hex stamp>}, unique per recorder as client-go's are.
 */
public final class PodEvents {

    /**
     * The kubelet's reasons and messages (k8s.io/kubernetes pkg/kubelet/events), as 1.32 words
     * them.
     */
    public static String created(String container) {
        return "Created container: " + container;
    }

    public static String started(String container) {
        return "Started container " + container;
    }

    public static String killing(String container) {
        return "Stopping container " + container;
    }

    /** The scheduler's message on a successful bind. */
    public static String scheduled(String namespace, String pod, String node) {
        return "Successfully assigned " + namespace + "/" + pod + " to " + node;
    }

    private final KubernetesClient client;
    private final Clock clock;
    private final Consumer<String> failures;
    private final AtomicLong lastStamp = new AtomicLong();

    /**
     * @param failures told when an Event cannot be written (the pod's work goes on: Events are best
     *     effort, as in Kubernetes)
     */
    public PodEvents(KubernetesClient client, Clock clock, Consumer<String> failures) {
        this.client = client;
        this.clock = clock;
        this.failures = failures;
    }

    /**
     * @param component the source: {@code kubelet} (with the node as host) or {@code
     *     default-scheduler} (no host)
     */
    public void record(
            Pod pod, String type, String reason, String message, String component, String host) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        String now = clock.instant().toString();
        try {
            client.v1()
                    .events()
                    .inNamespace(ns)
                    .resource(
                            new EventBuilder()
                                    .withNewMetadata()
                                    .withName(name + "." + Long.toHexString(stamp()))
                                    .withNamespace(ns)
                                    .endMetadata()
                                    .withNewInvolvedObject()
                                    .withApiVersion("v1")
                                    .withKind("Pod")
                                    .withName(name)
                                    .withNamespace(ns)
                                    .withUid(pod.getMetadata().getUid())
                                    .endInvolvedObject()
                                    .withType(type)
                                    .withReason(reason)
                                    .withMessage(message)
                                    .withNewSource()
                                    .withComponent(component)
                                    .withHost(host)
                                    .endSource()
                                    .withReportingComponent(component)
                                    .withReportingInstance(host)
                                    .withFirstTimestamp(now)
                                    .withLastTimestamp(now)
                                    .withCount(1)
                                    .build())
                    .create();
        } catch (KubernetesClientException e) {
            failures.accept("could not record event " + reason + ": " + e.getMessage());
        }
    }

    /** Nanoseconds since the epoch, strictly increasing (two events in one tick get two names). */
    private long stamp() {
        Instant now = clock.instant();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        return lastStamp.updateAndGet(last -> Math.max(last + 1, nanos));
    }
}
