package org.gpuoperator.toolkit;

import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.simulated.RuntimeConfig;

/**
 * What the daemon does when {@code driver-ready} changes after set-up. Pure: the daemon polls the
 * file and carries out the step.
 */
final class DriverFollow {

    private DriverFollow() {}

    /**
     * The facts of {@code driver-ready} the toolkit's files depend on.
     *
     * @param root the driver root ({@code NVIDIA_DRIVER_ROOT} when an absolute path, else {@link
     *     RuntimeConfig#DEFAULT_DRIVER_ROOT})
     * @param version {@code DRIVER_VERSION}; null when absent or blank (the inventory's is used)
     */
    record DriverFacts(String root, String version) {

        static DriverFacts of(Map<String, String> driverReady) {
            String root = driverReady.get("NVIDIA_DRIVER_ROOT");
            String version = driverReady.get("DRIVER_VERSION");
            return new DriverFacts(
                    root != null && root.startsWith("/") ? root : RuntimeConfig.DEFAULT_DRIVER_ROOT,
                    version == null || version.isBlank() ? null : version);
        }
    }

    enum Step {
        /** Nothing to do. */
        NOTHING,
        /** driver-ready went away: remove toolkit-ready, touch nothing else. */
        DRIVER_GONE,
        /**
         * driver-ready is there with other facts than the toolkit was set up for, or came back, or
         * toolkit-ready went away under a ready toolkit: rewrite the CDI specs, reinstall if the
         * root changed, apply the runtime config again (reloads only if a file changed: a replaced
         * toolkit pod's clean-up may have reverted it), write toolkit-ready.
         */
        APPLY
    }

    /**
     * @param applied the driver-ready facts the toolkit was last set up for
     * @param ready whether the toolkit counts itself ready
     * @param toolkitReadyThere whether the toolkit-ready file is there now (a replaced toolkit
     *     pod's clean-up may have removed it behind this one's back)
     * @param now driver-ready's facts now; empty when the file is not there
     */
    static Step next(
            DriverFacts applied,
            boolean ready,
            boolean toolkitReadyThere,
            Optional<DriverFacts> now) {
        if (now.isEmpty()) {
            return ready || toolkitReadyThere ? Step.DRIVER_GONE : Step.NOTHING;
        }
        return ready && toolkitReadyThere && now.get().equals(applied) ? Step.NOTHING : Step.APPLY;
    }
}
