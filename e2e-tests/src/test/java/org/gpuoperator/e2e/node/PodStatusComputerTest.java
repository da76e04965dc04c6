package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.gpuoperator.e2e.node.PodStatusComputer.ContainerView;
import org.gpuoperator.e2e.node.PodStatusComputer.Input;
import org.gpuoperator.e2e.node.PodStatusComputer.State;
import org.junit.jupiter.api.Test;

class PodStatusComputerTest {

    static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    static ContainerView view(
            String name, State state, State.Terminated last, int restarts, boolean ready) {
        return new ContainerView(name, "img", "img", "abc", state, last, restarts, ready);
    }

    static String condition(PodStatus s, String type) {
        return s.getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .map(PodCondition::getStatus)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void creatingPodIsPendingAndNotReady() {
        PodStatus s =
                PodStatusComputer.compute(
                        new Input(
                                List.of(),
                                List.of(
                                        view(
                                                "m",
                                                new State.Waiting("ContainerCreating", null),
                                                null,
                                                0,
                                                false)),
                                "Always",
                                null,
                                "10.0.0.1",
                                T0),
                        null,
                        T0);
        assertThat(s.getPhase()).isEqualTo("Pending");
        assertThat(condition(s, "PodScheduled")).isEqualTo("True");
        assertThat(condition(s, "Initialized")).isEqualTo("True");
        assertThat(condition(s, "Ready")).isEqualTo("False");
        assertThat(s.getContainerStatuses().get(0).getState().getWaiting().getReason())
                .isEqualTo("ContainerCreating");
        assertThat(s.getPodIP()).isNull();
        assertThat(s.getHostIP()).isEqualTo("10.0.0.1");
    }

    @Test
    void readyRunningPodHasAllConditionsAndIps() {
        PodStatus s =
                PodStatusComputer.compute(
                        new Input(
                                List.of(),
                                List.of(view("m", new State.Running(T0), null, 0, true)),
                                "Always",
                                "10.88.1.5",
                                "10.88.1.1",
                                T0),
                        null,
                        T0);
        assertThat(s.getPhase()).isEqualTo("Running");
        assertThat(condition(s, "ContainersReady")).isEqualTo("True");
        assertThat(condition(s, "Ready")).isEqualTo("True");
        assertThat(s.getPodIP()).isEqualTo("10.88.1.5");
        assertThat(s.getPodIPs()).hasSize(1);
        assertThat(s.getContainerStatuses().get(0).getContainerID()).isEqualTo("containerd://abc");
        assertThat(s.getStartTime()).isEqualTo("2026-12-01T10:00:00Z");
    }

    @Test
    void crashLoopingContainerKeepsThePodRunningWithLastStateAndRestartCount() {
        State.Terminated last = new State.Terminated(1, "Error", null, T0, T0.plusSeconds(1));
        PodStatus s =
                PodStatusComputer.compute(
                        new Input(
                                List.of(),
                                List.of(
                                        view(
                                                "m",
                                                new State.Waiting(
                                                        "CrashLoopBackOff",
                                                        "back-off 10s restarting failed container=m"),
                                                last,
                                                3,
                                                false)),
                                "Always",
                                "10.88.1.5",
                                "10.88.1.1",
                                T0),
                        null,
                        T0);
        assertThat(s.getPhase()).isEqualTo("Running");
        var cs = s.getContainerStatuses().get(0);
        assertThat(cs.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
        assertThat(cs.getLastState().getTerminated().getExitCode()).isEqualTo(1);
        assertThat(cs.getRestartCount()).isEqualTo(3);
        assertThat(condition(s, "Ready")).isEqualTo("False");
    }

    @Test
    void initContainersGateInitializedAndPhase() {
        PodStatus running =
                PodStatusComputer.compute(
                        new Input(
                                List.of(view("init", new State.Running(T0), null, 0, false)),
                                List.of(
                                        view(
                                                "m",
                                                new State.Waiting("PodInitializing", null),
                                                null,
                                                0,
                                                false)),
                                "Always",
                                "ip",
                                "h",
                                T0),
                        null,
                        T0);
        assertThat(running.getPhase()).isEqualTo("Pending");
        assertThat(condition(running, "Initialized")).isEqualTo("False");
        PodStatus failed =
                PodStatusComputer.compute(
                        new Input(
                                List.of(
                                        view(
                                                "init",
                                                new State.Terminated(2, "Error", null, T0, T0),
                                                null,
                                                0,
                                                false)),
                                List.of(
                                        view(
                                                "m",
                                                new State.Waiting("PodInitializing", null),
                                                null,
                                                0,
                                                false)),
                                "Never",
                                "ip",
                                "h",
                                T0),
                        null,
                        T0);
        assertThat(failed.getPhase()).isEqualTo("Failed");
    }

    @Test
    void phaseForFinishedContainersFollowsRestartPolicy() {
        var ok = view("m", new State.Terminated(0, "Completed", null, T0, T0), null, 0, false);
        var bad = view("m", new State.Terminated(1, "Error", null, T0, T0), null, 0, false);
        assertThat(PodStatusComputer.phase(List.of(ok), "Never")).isEqualTo("Succeeded");
        assertThat(PodStatusComputer.phase(List.of(bad), "Never")).isEqualTo("Failed");
        assertThat(PodStatusComputer.phase(List.of(bad), "OnFailure")).isEqualTo("Running");
        assertThat(PodStatusComputer.phase(List.of(ok), "OnFailure")).isEqualTo("Succeeded");
    }

    @Test
    void anUnchangedPodComputesAnEqualStatusSoNothingIsWritten() {
        Input in =
                new Input(
                        List.of(),
                        List.of(view("m", new State.Running(T0), null, 0, true)),
                        "Always",
                        "ip",
                        "h",
                        T0);
        PodStatus first = PodStatusComputer.compute(in, null, T0);
        PodStatus later = PodStatusComputer.compute(in, first, T0.plus(Duration.ofMinutes(5)));
        assertThat(PodStatusComputer.changed(first, later)).isFalse();
        // a condition that flips gets a new transition time
        Input unready =
                new Input(
                        List.of(),
                        List.of(view("m", new State.Running(T0), null, 0, false)),
                        "Always",
                        "ip",
                        "h",
                        T0);
        PodStatus flipped =
                PodStatusComputer.compute(unready, first, T0.plus(Duration.ofMinutes(5)));
        assertThat(PodStatusComputer.changed(first, flipped)).isTrue();
        assertThat(
                        flipped.getConditions().stream()
                                .filter(c -> c.getType().equals("Ready"))
                                .findFirst()
                                .orElseThrow()
                                .getLastTransitionTime())
                .isEqualTo("2026-12-01T10:05:00Z");
        assertThat(
                        flipped.getConditions().stream()
                                .filter(c -> c.getType().equals("PodScheduled"))
                                .findFirst()
                                .orElseThrow()
                                .getLastTransitionTime())
                .isEqualTo("2026-12-01T10:00:00Z");
    }

    @Test
    void backoffDoublesFromBaseUpToMax() {
        RestartBackoff b = RestartBackoff.KUBELET;
        assertThat(b.delay(0)).isEqualTo(Duration.ofSeconds(10));
        assertThat(b.delay(1)).isEqualTo(Duration.ofSeconds(20));
        assertThat(b.delay(4)).isEqualTo(Duration.ofSeconds(160));
        assertThat(b.delay(5)).isEqualTo(Duration.ofMinutes(5));
        assertThat(b.delay(50)).isEqualTo(Duration.ofMinutes(5));
        RestartBackoff fast = new RestartBackoff(Duration.ofMillis(100), Duration.ofSeconds(1));
        assertThat(fast.delay(3)).isEqualTo(Duration.ofMillis(800));
        assertThat(fast.delay(4)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aPodRejectedAtAdmissionFailsWithTheKubeletsReasonAndNothingStarted() {
        PodStatus s =
                PodStatusComputer.rejected(
                        "UnexpectedAdmissionError",
                        "Allocate failed due to x, which is unexpected",
                        "10.88.1.1",
                        T0,
                        null,
                        T0);
        assertThat(s.getPhase()).isEqualTo("Failed");
        assertThat(s.getReason()).isEqualTo("UnexpectedAdmissionError");
        assertThat(s.getMessage()).isEqualTo("Allocate failed due to x, which is unexpected");
        assertThat(s.getContainerStatuses()).isEmpty();
        assertThat(condition(s, "PodScheduled")).isEqualTo("True");
        assertThat(
                        PodStatusComputer.changed(
                                s,
                                PodStatusComputer.rejected(
                                        "UnexpectedAdmissionError",
                                        "Allocate failed due to x, which is unexpected",
                                        "10.88.1.1",
                                        T0,
                                        s,
                                        T0.plusSeconds(5))))
                .isFalse();
    }
}
