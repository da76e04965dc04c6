package org.gpuoperator.validator.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.gpuoperator.validator.report.CheckState;
import org.junit.jupiter.api.Test;

class PodOutcomeTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** A workload pod as the API server returns it, read as a generic resource. */
    private static GenericKubernetesResource pod(String status) {
        return JSON.unmarshal(
                """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","namespace":"ns"},
                 "spec":{"containers":[{"name":"c","image":"i"}]},"status":%s}"""
                        .formatted(status),
                GenericKubernetesResource.class);
    }

    /** The events of a pod whose containers or status say why: never asked for. */
    private static List<Event> noEventsAsked() {
        throw new AssertionError("events listed although the pod's status says why");
    }

    private static Event warning(String reason, String message) {
        return new EventBuilder()
                .withType("Warning")
                .withReason(reason)
                .withMessage(message)
                .build();
    }

    @Test
    void succeededIsReadyAndFinishedWithoutAskingForEvents() {
        GenericKubernetesResource p = pod("{\"phase\":\"Succeeded\"}");
        assertThat(PodOutcome.finished(p)).isTrue();
        assertThat(PodOutcome.of(p, PodOutcomeTest::noEventsAsked).state())
                .isEqualTo(CheckState.READY);
    }

    @Test
    void aNonZeroExitCodeIsTheReasonWithTheContainersReasonAndMessage() {
        GenericKubernetesResource p =
                pod(
                        """
                        {"phase":"Failed","containerStatuses":[{"name":"c","state":{"terminated":
                         {"exitCode":127,"reason":"Error","message":" nvidia-smi: not found\\n"}}}]}""");
        assertThat(PodOutcome.finished(p)).isTrue();
        var r = PodOutcome.of(p, PodOutcomeTest::noEventsAsked);
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .isEqualTo("pod w failed: exit code 127: Error: nvidia-smi: not found");
    }

    @Test
    void aZeroExitCodeSaysNothingAndAMissingOneIsNamed() {
        GenericKubernetesResource zero =
                pod(
                        """
                        {"phase":"Running","containerStatuses":[{"name":"c","state":{"terminated":
                         {"exitCode":0,"reason":"Completed"}}}]}""");
        assertThat(PodOutcome.of(zero, List::of).reason()).isEqualTo("pod w is Running");
        GenericKubernetesResource missing =
                pod(
                        """
                        {"phase":"Failed","containerStatuses":[{"name":"c","state":{"terminated":
                         {"reason":"OOMKilled"}}}]}""");
        assertThat(PodOutcome.of(missing, PodOutcomeTest::noEventsAsked).reason())
                .isEqualTo("pod w failed: exit code null: OOMKilled");
    }

    @Test
    void aWaitingContainersReasonThenThePodsThenTheNewestWarningEvent() {
        GenericKubernetesResource waiting =
                pod(
                        """
                        {"phase":"Pending","containerStatuses":[{"name":"c","state":{"waiting":
                         {"reason":"ErrImagePull","message":"no such image"}}}]}""");
        assertThat(PodOutcome.finished(waiting)).isFalse();
        var r = PodOutcome.of(waiting, PodOutcomeTest::noEventsAsked);
        assertThat(r.state()).isEqualTo(CheckState.WAITING);
        assertThat(r.reason()).isEqualTo("pod w is Pending: ErrImagePull: no such image");

        GenericKubernetesResource evicted =
                pod("{\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"low on memory\"}");
        assertThat(PodOutcome.of(evicted, PodOutcomeTest::noEventsAsked).reason())
                .isEqualTo("pod w failed: Evicted: low on memory");

        GenericKubernetesResource bare = pod("{\"phase\":\"Failed\"}");
        assertThat(
                        PodOutcome.of(
                                        bare,
                                        () ->
                                                List.of(
                                                        warning("FailedMount", "old"),
                                                        new EventBuilder()
                                                                .withType("Normal")
                                                                .withReason("Pulled")
                                                                .build(),
                                                        warning(
                                                                "FailedCreatePodSandBox",
                                                                "no runtime")))
                                .reason())
                .isEqualTo("pod w failed: FailedCreatePodSandBox: no runtime");
    }

    @Test
    void noStatusYetIsPending() {
        GenericKubernetesResource p =
                JSON.unmarshal(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\"}}",
                        GenericKubernetesResource.class);
        assertThat(PodOutcome.finished(p)).isFalse();
        assertThat(PodOutcome.of(p, List::of).reason()).isEqualTo("pod w is Pending");
    }
}
