package org.gpuoperator.e2e.node;

import java.time.Duration;
import java.time.Instant;

/**
 * What the kubelet does when a container has exited: whether it is restarted at all (restart
 * policy; an init container that succeeded never is), and when. The first restart is immediate;
 * each later one waits the next back-off step ({@link RestartBackoff}); a container that ran for at
 * least twice the maximum starts over. Pure.
 */
public final class CrashLoop {

    /**
     * The back-off state of one container: the next step, and when the pending restart may happen.
     */
    public record Schedule(int step, Instant restartAt, Duration delay) {
        public static final Schedule FRESH = new Schedule(0, null, Duration.ZERO);
    }

    private CrashLoop() {}

    public static boolean restarts(String restartPolicy, boolean init, int exitCode) {
        return switch (restartPolicy == null ? "Always" : restartPolicy) {
            case "Never" -> false;
            case "OnFailure" -> exitCode != 0;
            default -> !init || exitCode != 0; // an init container that succeeded is done
        };
    }

    /**
     * The schedule after an exit observed at {@code now} of a container that ran for {@code ran}.
     */
    public static Schedule afterExit(
            RestartBackoff backoff, Schedule current, Duration ran, Instant now) {
        int step = ran.compareTo(backoff.max().multipliedBy(2)) >= 0 ? 0 : current.step();
        Duration delay = step == 0 ? Duration.ZERO : backoff.delay(step - 1);
        return new Schedule(step + 1, now.plus(delay), delay);
    }

    public static boolean inBackOff(Schedule s, Instant now) {
        return s.restartAt() != null && now.isBefore(s.restartAt());
    }

    /**
     * The kubelet's waiting message, e.g. {@code back-off 20s restarting failed container=c
     * pod=p_ns(uid)}.
     */
    public static String message(
            Schedule s, String container, String pod, String namespace, String uid) {
        return "back-off "
                + goDuration(s.delay())
                + " restarting failed container="
                + container
                + " pod="
                + pod
                + "_"
                + namespace
                + "("
                + uid
                + ")";
    }

    /** Go's duration format as the kubelet prints it ("500ms", "10s", "2m40s", "5m0s"). */
    static String goDuration(Duration d) {
        if (d.toMillis() < 1000) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        long ms = d.toMillisPart();
        String secs =
                ms == 0
                        ? String.valueOf(s % 60)
                        : (s % 60) + "." + String.format("%03d", ms).replaceAll("0+$", "");
        return s >= 60 ? (s / 60) + "m" + secs + "s" : secs + "s";
    }
}
