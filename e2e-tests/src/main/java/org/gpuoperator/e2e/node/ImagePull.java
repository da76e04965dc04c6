package org.gpuoperator.e2e.node;

import java.time.Duration;
import java.time.Instant;
import org.gpuoperator.e2e.images.ImageName;

/**
 * The kubelet's image step before it creates a container, as its image manager does it: the pull
 * policy ({@code imagePullPolicy}, defaulted as the API server does), the image already present,
 * the pull back-off per pod and image (10 s doubling to 5 min on a real node: {@link
 * RestartBackoff}), and the kubelet's messages. Pure: the caller pulls and records the events.
 */
public final class ImagePull {

    private ImagePull() {}

    /** The back-off of one image of one pod after failed pulls; {@link #NONE} before any. */
    public record Backoff(int step, Instant lastFailure, Instant until, String lastError) {
        public static final Backoff NONE = new Backoff(0, null, null, null);
    }

    /** What the kubelet does with a container's image now. */
    public sealed interface Decision {}

    /** Malformed reference: waiting {@code InvalidImageName}, Warning {@code InspectFailed}. */
    public record Invalid(String message) implements Decision {}

    /** Present and not to be pulled: Normal {@code Pulled} "already present on machine". */
    public record Present(String message) implements Decision {}

    /** Missing with {@code Never}: waiting {@code ErrImageNeverPull}, Warning event. */
    public record NeverPull(String message) implements Decision {}

    /**
     * Still backing off from the last failure: waiting {@code ImagePullBackOff} with {@code
     * waitingMessage}; Normal {@code BackOff} event {@code eventMessage}.
     */
    public record BackingOff(String eventMessage, String waitingMessage) implements Decision {}

    /** Pull now: Normal {@code Pulling} event {@code message}. */
    public record Pull(String message) implements Decision {}

    /** The waiting reasons the kubelet reports. */
    public static final String ERR_IMAGE_PULL = "ErrImagePull";

    public static final String IMAGE_PULL_BACK_OFF = "ImagePullBackOff";
    public static final String ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull";
    public static final String INVALID_IMAGE_NAME = "InvalidImageName";

    /** The policy the API server defaults when the pod leaves it unset. */
    public static String policy(String imagePullPolicy, String image) {
        return imagePullPolicy == null || imagePullPolicy.isEmpty()
                ? ImageName.defaultPullPolicy(image)
                : imagePullPolicy;
    }

    /**
     * @param image the container's image, as written in the pod
     * @param policy its pull policy ({@link #policy})
     * @param present whether the node's runtime has it
     */
    public static Decision decide(
            String image, String policy, boolean present, Backoff backoff, Instant now) {
        if (ImageName.parse(image).isEmpty()) {
            return new Invalid(
                    "Failed to apply default image tag \""
                            + image
                            + "\": couldn't parse image reference \""
                            + image
                            + "\": invalid reference format");
        }
        if ("Never".equals(policy)) {
            return present
                    ? new Present(alreadyPresent(image))
                    : new NeverPull(
                            "Container image \""
                                    + image
                                    + "\" is not present with pull policy of Never");
        }
        if (present && !"Always".equals(policy)) {
            return new Present(alreadyPresent(image));
        }
        if (backoff.until() != null && now.isBefore(backoff.until())) {
            String event = "Back-off pulling image \"" + image + "\"";
            return new BackingOff(
                    event,
                    backoff.lastError() == null
                            ? event
                            : event + ": " + ERR_IMAGE_PULL + ": " + backoff.lastError());
        }
        return new Pull("Pulling image \"" + image + "\"");
    }

    /**
     * The back-off after a pull failed at {@code now} with {@code error}: the first waits {@code
     * base}, each next twice as long up to {@code max}; after a quiet spell of twice the maximum it
     * starts over, as the kubelet's back-off does.
     */
    public static Backoff failed(RestartBackoff config, Backoff prev, String error, Instant now) {
        boolean fresh =
                prev.lastFailure() == null
                        || !now.isBefore(prev.lastFailure().plus(config.max().multipliedBy(2)));
        int step = fresh ? 0 : prev.step() + 1;
        return new Backoff(step, now, now.plus(config.delay(step)), error);
    }

    public static String alreadyPresent(String image) {
        return "Container image \"" + image + "\" already present on machine";
    }

    /** The Warning {@code Failed} event of a failed pull. */
    public static String failedToPull(String image, String error) {
        return "Failed to pull image \"" + image + "\": " + error;
    }

    /** The Normal {@code Pulled} event of a pull. */
    public static String pulled(String image, Duration pull, Duration total, long size) {
        return "Successfully pulled image \""
                + image
                + "\" in "
                + go(pull)
                + " ("
                + go(total)
                + " including waiting). Image size: "
                + size
                + " bytes.";
    }

    /** The Warning {@code Failed} event the container's start adds: {@code Error: <reason>}. */
    public static String error(String reason) {
        return "Error: " + reason;
    }

    /** Go's format of a duration truncated to milliseconds ("0s", "12ms", "1.234s"). */
    private static String go(Duration d) {
        return d.toMillis() == 0 ? "0s" : CrashLoop.goDuration(Duration.ofMillis(d.toMillis()));
    }
}
