package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.gpuoperator.validator.report.CheckResult;

/** What a workload pod's status and events say about the check. Pure. */
public final class PodOutcome {

    private PodOutcome() {}

    /** Ready once Succeeded, failed once Failed, else waiting; the reason names the pod. */
    public static CheckResult of(Pod pod, List<Event> events) {
        String name = pod.getMetadata().getName();
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
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
    public static boolean finished(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /**
     * The most specific reason at hand: the container's termination or waiting message, the pod's
     * message, then the newest Warning event about the pod (the runtime's error text lands there).
     */
    static String why(Pod pod, List<Event> events) {
        if (pod.getStatus() != null && pod.getStatus().getContainerStatuses() != null) {
            for (ContainerStatus c : pod.getStatus().getContainerStatuses()) {
                if (c.getState() == null) {
                    continue;
                }
                var t = c.getState().getTerminated();
                if (t != null && (t.getExitCode() == null || t.getExitCode() != 0)) {
                    return join(
                            "exit code " + t.getExitCode(), join(t.getReason(), t.getMessage()));
                }
                var w = c.getState().getWaiting();
                if (w != null && (w.getReason() != null || w.getMessage() != null)) {
                    return join(w.getReason(), w.getMessage());
                }
            }
        }
        if (pod.getStatus() != null
                && (pod.getStatus().getMessage() != null || pod.getStatus().getReason() != null)) {
            return join(pod.getStatus().getReason(), pod.getStatus().getMessage());
        }
        Event newest = null;
        for (Event e : events) {
            if ("Warning".equals(e.getType())) {
                newest = e;
            }
        }
        return newest == null ? "" : join(newest.getReason(), newest.getMessage());
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
