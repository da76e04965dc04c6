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
         * driver-ready is there with other facts than the toolkit was set up for, or came back:
         * rewrite the CDI specs, reinstall if the root changed, write toolkit-ready.
         */
        APPLY
    }

    /**
     * @param applied the driver-ready facts the toolkit was last set up for
     * @param toolkitReady whether toolkit-ready is written
     * @param now driver-ready's facts now; empty when the file is not there
     */
    static Step next(DriverFacts applied, boolean toolkitReady, Optional<DriverFacts> now) {
        if (now.isEmpty()) {
            return toolkitReady ? Step.DRIVER_GONE : Step.NOTHING;
        }
        return toolkitReady && now.get().equals(applied) ? Step.NOTHING : Step.APPLY;
    }
}
