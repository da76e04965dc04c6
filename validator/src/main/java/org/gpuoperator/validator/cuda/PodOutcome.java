package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.validator.report.CheckResult;

/**
 * What a workload pod's status and events say about the check. Pure. The pod is read as a generic
 * resource ({@link WorkloadRunner}): only its name and a few status fields are needed.
 */
public final class PodOutcome {

    private PodOutcome() {}

    /**
     * Ready once Succeeded, failed once Failed, else waiting; the reason names the pod.
     *
     * @param events the events about the pod, asked for only when neither its containers nor its
     *     status say why it is not Succeeded (a list call to the API server, and the first one
     *     builds Jackson's reader of Event, on the way to a check's result)
     */
    public static CheckResult of(GenericKubernetesResource pod, Supplier<List<Event>> events) {
        String name = pod.getMetadata().getName();
        String phase = phase(pod);
        if ("Succeeded".equals(phase)) {
            return CheckResult.ready();
        }
        String why = why(pod, events);
        if ("Failed".equals(phase)) {
            return CheckResult.failed(
                    "pod " + name + " failed" + (why.isEmpty() ? "" : ": " + why));
        }
        return CheckResult.waiting(
                "pod "
                        + name
                        + " is "
                        + (phase == null ? "Pending" : phase)
                        + (why.isEmpty() ? "" : ": " + why));
    }

    /** Whether the pod is over (Succeeded or Failed). */
    public static boolean finished(GenericKubernetesResource pod) {
        String phase = phase(pod);
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    private static String phase(GenericKubernetesResource pod) {
        return text(pod.get("status", "phase"));
    }

    /**
     * The most specific reason at hand: the container's termination or waiting message, the pod's
     * message, then the newest Warning event about the pod (the runtime's error text lands there).
     */
    static String why(GenericKubernetesResource pod, Supplier<List<Event>> events) {
        if (pod.get("status", "containerStatuses") instanceof List<?> statuses) {
            for (Object status : statuses) {
                if (!(status instanceof Map<?, ?> c) || !(c.get("state") instanceof Map<?, ?> s)) {
                    continue;
                }
                if (s.get("terminated") instanceof Map<?, ?> t) {
                    Object exitCode = t.get("exitCode");
                    if (!(exitCode instanceof Number n && n.longValue() == 0)) {
                        return join(
                                "exit code " + exitCode,
                                join(text(t.get("reason")), text(t.get("message"))));
                    }
                }
                if (s.get("waiting") instanceof Map<?, ?> w) {
                    String reason = text(w.get("reason"));
                    String message = text(w.get("message"));
                    if (reason != null || message != null) {
                        return join(reason, message);
                    }
                }
            }
        }
        String reason = text(pod.get("status", "reason"));
        String message = text(pod.get("status", "message"));
        if (reason != null || message != null) {
            return join(reason, message);
        }
        Event newest = null;
        for (Event e : events.get()) {
            if ("Warning".equals(e.getType())) {
                newest = e;
            }
        }
        return newest == null ? "" : join(newest.getReason(), newest.getMessage());
    }

    private static String text(Object value) {
        return value instanceof String s ? s : null;
    }

    private static String join(String a, String b) {
        boolean hasA = a != null && !a.isBlank();
        boolean hasB = b != null && !b.isBlank();
        if (hasA && hasB) {
            return a.strip() + ": " + b.strip();
        }
        return hasA ? a.strip() : hasB ? b.strip() : "";
    }
}
