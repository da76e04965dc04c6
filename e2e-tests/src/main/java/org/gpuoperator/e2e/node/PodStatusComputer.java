package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.HostIP;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A pod's status from what the kubelet knows of its containers, as the kubelet computes it:
 * container states, phase and conditions. Pure; transition times come from the previous status
 * where a condition did not change, so that an unchanged pod computes an equal status and nothing
 * is written.
 */
public final class PodStatusComputer {

    /** One container as the runtime and the prober see it. */
    public sealed interface State {
        record Waiting(String reason, String message) implements State {}

        record Running(Instant startedAt) implements State {}

        record Terminated(
                int exitCode, String reason, String message, Instant startedAt, Instant finishedAt)
                implements State {}
    }

    public record ContainerView(
            String name,
            String image,
            String imageId,
            String containerId,
            State state,
            State.Terminated lastTerminated,
            int restartCount,
            boolean ready) {}

    /**
     * @param init init containers, in spec order, those not yet started as Waiting
     * @param main main containers, in spec order
     * @param podIp null until the sandbox has one
     * @param startTime when the kubelet first acknowledged the pod
     * @param message a pod-level message (e.g. a failed mount), or null
     */
    public record Input(
            List<ContainerView> init,
            List<ContainerView> main,
            String restartPolicy,
            String podIp,
            String hostIp,
            Instant startTime) {}

    private PodStatusComputer() {}

    public static PodStatus compute(Input in, PodStatus previous, Instant now) {
        boolean initialized =
                in.init().stream()
                        .allMatch(
                                c -> c.state() instanceof State.Terminated t && t.exitCode() == 0);
        boolean initFailedForGood =
                "Never".equals(in.restartPolicy())
                        && in.init().stream()
                                .anyMatch(
                                        c ->
                                                c.state() instanceof State.Terminated t
                                                        && t.exitCode() != 0);
        String phase =
                initFailedForGood
                        ? "Failed"
                        : !initialized ? "Pending" : phase(in.main(), in.restartPolicy());
        List<String> unready =
                in.main().stream().filter(c -> !c.ready()).map(ContainerView::name).toList();
        boolean containersReady = initialized && unready.isEmpty();
        String unreadyMsg = "containers with unready status: [" + String.join(" ", unready) + "]";
        List<String> uninit =
                in.init().stream()
                        .filter(
                                c ->
                                        !(c.state() instanceof State.Terminated t
                                                && t.exitCode() == 0))
                        .map(ContainerView::name)
                        .toList();

        List<PodCondition> conditions = new ArrayList<>();
        conditions.add(condition(previous, "PodScheduled", true, null, null, now));
        conditions.add(
                condition(
                        previous,
                        "Initialized",
                        initialized,
                        "ContainersNotInitialized",
                        "containers with incomplete status: [" + String.join(" ", uninit) + "]",
                        now));
        conditions.add(
                condition(
                        previous,
                        "ContainersReady",
                        containersReady,
                        "ContainersNotReady",
                        unreadyMsg,
                        now));
        conditions.add(
                condition(
                        previous, "Ready", containersReady, "ContainersNotReady", unreadyMsg, now));

        PodStatusBuilder b =
                new PodStatusBuilder()
                        .withPhase(phase)
                        .withConditions(conditions)
                        .withInitContainerStatuses(
                                in.init().stream().map(PodStatusComputer::status).toList())
                        .withContainerStatuses(
                                in.main().stream().map(PodStatusComputer::status).toList())
                        .withHostIP(in.hostIp())
                        .withHostIPs(new HostIP(in.hostIp()))
                        .withStartTime(in.startTime() == null ? null : in.startTime().toString())
                        .withQosClass(previous == null ? null : previous.getQosClass());
        if (in.podIp() != null) {
            b.withPodIP(in.podIp()).withPodIPs(new PodIP(in.podIp()));
        }
        return b.build();
    }

    /**
     * A pod the kubelet refused at admission (e.g. {@code UnexpectedAdmissionError}): failed for
     * good, with the reason and message and nothing started; the PodScheduled condition stays as it
     * was.
     */
    public static PodStatus rejected(
            String reason,
            String message,
            String hostIp,
            Instant startTime,
            PodStatus previous,
            Instant now) {
        return new PodStatusBuilder()
                .withPhase("Failed")
                .withReason(reason)
                .withMessage(message)
                .withConditions(condition(previous, "PodScheduled", true, null, null, now))
                .withHostIP(hostIp)
                .withHostIPs(new HostIP(hostIp))
                .withStartTime(startTime == null ? null : startTime.toString())
                .build();
    }

    /** The kubelet's phase rule over the main containers. */
    static String phase(List<ContainerView> main, String restartPolicy) {
        int running = 0, waiting = 0, stopped = 0, succeeded = 0;
        for (ContainerView c : main) {
            switch (c.state()) {
                case State.Running r -> running++;
                case State.Terminated t -> {
                    stopped++;
                    if (t.exitCode() == 0) {
                        succeeded++;
                    }
                }
                case State.Waiting w -> {
                    if (c.lastTerminated() != null) {
                        stopped++; // between two runs: it did run
                    } else {
                        waiting++;
                    }
                }
            }
        }
        if (waiting > 0) {
            return "Pending";
        }
        if (running > 0) {
            return "Running";
        }
        if (stopped == 0) {
            return "Pending";
        }
        return switch (restartPolicy == null ? "Always" : restartPolicy) {
            case "Never" -> succeeded == stopped ? "Succeeded" : "Failed";
            case "OnFailure" -> succeeded == stopped ? "Succeeded" : "Running";
            default -> "Running";
        };
    }

    static ContainerStatus status(ContainerView c) {
        ContainerStatusBuilder b =
                new ContainerStatusBuilder()
                        .withName(c.name())
                        .withImage(c.image())
                        .withImageID(c.imageId() == null ? "" : c.imageId())
                        .withContainerID(
                                c.containerId() == null ? null : "containerd://" + c.containerId())
                        .withRestartCount(c.restartCount())
                        .withReady(c.ready())
                        .withStarted(c.state() instanceof State.Running)
                        .withState(state(c.state()));
        if (c.lastTerminated() != null) {
            b.withLastState(state(c.lastTerminated()));
        }
        return b.build();
    }

    static ContainerState state(State s) {
        return switch (s) {
            case State.Waiting w ->
                    new ContainerStateBuilder()
                            .withNewWaiting()
                            .withReason(w.reason())
                            .withMessage(w.message())
                            .endWaiting()
                            .build();
            case State.Running r ->
                    new ContainerStateBuilder()
                            .withNewRunning()
                            .withStartedAt(ts(r.startedAt()))
                            .endRunning()
                            .build();
            case State.Terminated t ->
                    new ContainerStateBuilder()
                            .withNewTerminated()
                            .withExitCode(t.exitCode())
                            .withReason(t.reason())
                            .withMessage(t.message())
                            .withStartedAt(ts(t.startedAt()))
                            .withFinishedAt(ts(t.finishedAt()))
                            .endTerminated()
                            .build();
        };
    }

    private static String ts(Instant i) {
        return i == null ? null : i.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }

    private static PodCondition condition(
            PodStatus previous,
            String type,
            boolean ok,
            String reason,
            String message,
            Instant now) {
        String status = ok ? "True" : "False";
        String since = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        if (previous != null && previous.getConditions() != null) {
            for (PodCondition p : previous.getConditions()) {
                if (type.equals(p.getType())
                        && status.equals(p.getStatus())
                        && p.getLastTransitionTime() != null) {
                    since = p.getLastTransitionTime();
                }
            }
        }
        return new PodConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withLastTransitionTime(since)
                .withReason(ok ? null : reason)
                .withMessage(ok ? null : message)
                .build();
    }

    /**
     * Whether writing {@code next} would change what the API server has (fields the kubelet owns).
     */
    public static boolean changed(PodStatus current, PodStatus next) {
        return !java.util.Objects.equals(current, next);
    }
}
