package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ImagePullTest {

    static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    static final String IMAGE = "registry.example.com/app:1";
    static final String ERROR = "rpc error: code = NotFound desc = x: not found";

    @Test
    void policyDefaultsAsTheApiServerDoesWhenUnset() {
        assertThat(ImagePull.policy(null, "busybox")).isEqualTo("Always");
        assertThat(ImagePull.policy("", "busybox:1.36")).isEqualTo("IfNotPresent");
        assertThat(ImagePull.policy("Never", "busybox")).isEqualTo("Never");
    }

    @Test
    void presentImagesAreUsedUnlessThePolicyIsAlways() {
        assertThat(ImagePull.decide(IMAGE, "IfNotPresent", true, ImagePull.Backoff.NONE, T0))
                .isEqualTo(
                        new ImagePull.Present(
                                "Container image \"" + IMAGE + "\" already present on machine"));
        assertThat(ImagePull.decide(IMAGE, "Never", true, ImagePull.Backoff.NONE, T0))
                .isInstanceOf(ImagePull.Present.class);
        assertThat(ImagePull.decide(IMAGE, "Always", true, ImagePull.Backoff.NONE, T0))
                .isEqualTo(new ImagePull.Pull("Pulling image \"" + IMAGE + "\""));
        assertThat(ImagePull.decide(IMAGE, "IfNotPresent", false, ImagePull.Backoff.NONE, T0))
                .isEqualTo(new ImagePull.Pull("Pulling image \"" + IMAGE + "\""));
    }

    @Test
    void neverWithAMissingImageIsErrImageNeverPull() {
        assertThat(ImagePull.decide(IMAGE, "Never", false, ImagePull.Backoff.NONE, T0))
                .isEqualTo(
                        new ImagePull.NeverPull(
                                "Container image \""
                                        + IMAGE
                                        + "\" is not present with pull policy of Never"));
    }

    @Test
    void aMalformedReferenceIsInvalidImageName() {
        assertThat(ImagePull.decide("Bad:Ref:", "IfNotPresent", false, ImagePull.Backoff.NONE, T0))
                .isEqualTo(
                        new ImagePull.Invalid(
                                "Failed to apply default image tag \"Bad:Ref:\": couldn't parse"
                                        + " image reference \"Bad:Ref:\": invalid reference format"));
    }

    @Test
    void failedPullsBackOffTenSecondsDoublingToFiveMinutesWithTheLastError() {
        RestartBackoff config = RestartBackoff.KUBELET;
        ImagePull.Backoff b = ImagePull.Backoff.NONE;
        Instant now = T0;
        long[] expected = {10, 20, 40, 80, 160, 300, 300};
        for (long secs : expected) {
            b = ImagePull.failed(config, b, ERROR, now);
            assertThat(b.until()).isEqualTo(now.plusSeconds(secs));
            assertThat(
                            ImagePull.decide(
                                    IMAGE,
                                    "IfNotPresent",
                                    false,
                                    b,
                                    now.plusSeconds(secs).minusMillis(1)))
                    .isEqualTo(
                            new ImagePull.BackingOff(
                                    "Back-off pulling image \"" + IMAGE + "\"",
                                    "Back-off pulling image \""
                                            + IMAGE
                                            + "\": ErrImagePull: "
                                            + ERROR));
            assertThat(ImagePull.decide(IMAGE, "IfNotPresent", false, b, now.plusSeconds(secs)))
                    .isInstanceOf(ImagePull.Pull.class);
            now = now.plusSeconds(secs);
        }
        // quiet for twice the maximum: the next failure starts over at the base
        b = ImagePull.failed(config, b, ERROR, now.plus(Duration.ofMinutes(10)));
        assertThat(b.step()).isZero();
        assertThat(Duration.between(b.lastFailure(), b.until())).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aShortBaseForTests() {
        RestartBackoff fast = new RestartBackoff(Duration.ofMillis(500), Duration.ofSeconds(4));
        ImagePull.Backoff b = ImagePull.failed(fast, ImagePull.Backoff.NONE, ERROR, T0);
        assertThat(b.until()).isEqualTo(T0.plusMillis(500));
        b = ImagePull.failed(fast, b, ERROR, T0.plusSeconds(1));
        assertThat(b.until()).isEqualTo(T0.plusSeconds(2));
    }

    @Test
    void theKubeletsEventMessages() {
        assertThat(
                        ImagePull.pulled(
                                "busybox",
                                Duration.ofMillis(1234),
                                Duration.ofMillis(1500),
                                2167176))
                .isEqualTo(
                        "Successfully pulled image \"busybox\" in 1.234s (1.5s including waiting)."
                                + " Image size: 2167176 bytes.");
        assertThat(ImagePull.pulled("busybox", Duration.ofNanos(300_000), Duration.ofMillis(12), 1))
                .isEqualTo(
                        "Successfully pulled image \"busybox\" in 0s (12ms including waiting)."
                                + " Image size: 1 bytes.");
        assertThat(ImagePull.failedToPull(IMAGE, ERROR))
                .isEqualTo("Failed to pull image \"" + IMAGE + "\": " + ERROR);
        assertThat(ImagePull.error("ErrImagePull")).isEqualTo("Error: ErrImagePull");
    }
}
