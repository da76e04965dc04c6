package org.gpuoperator.controller.upgrade;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of one pass, for upstream's metrics.
 *
 * @param inProgress nodes between cordon and uncordon (NotReady ones included), not failed ones:
 *     those are counted in {@code failed} only, though they hold a maxParallelUpgrades slot
 *     (upstream's library counts them in both: its in-progress figure is every managed node but
 *     those unknown, done or upgrade-required)
 * @param done nodes in upgrade-done
 * @param failed nodes in upgrade-failed
 * @param available how many more nodes may start now: min(free maxParallelUpgrades slots,
 *     maxUnavailable minus unavailable nodes), never negative
 * @param pending nodes that need an upgrade and have not started (upgrade-required, or about to be)
 */
public record UpgradeSummary(
        int inProgress, int done, int failed, int available, int pending, boolean autoUpgrade) {

    public static final String IN_PROGRESS = "gpu_operator_nodes_upgrades_in_progress";
    public static final String DONE = "gpu_operator_nodes_upgrades_done";
    public static final String FAILED = "gpu_operator_nodes_upgrades_failed";
    public static final String AVAILABLE = "gpu_operator_nodes_upgrades_available";
    public static final String PENDING = "gpu_operator_nodes_upgrades_pending";
    public static final String AUTO_UPGRADE_ENABLED = "gpu_operator_driver_auto_upgrade_enabled";

    /** Gauge name to value, upstream's names. */
    public Map<String, Double> metrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(IN_PROGRESS, (double) inProgress);
        m.put(DONE, (double) done);
        m.put(FAILED, (double) failed);
        m.put(AVAILABLE, (double) available);
        m.put(PENDING, (double) pending);
        m.put(AUTO_UPGRADE_ENABLED, autoUpgrade ? 1.0 : 0.0);
        return m;
    }
}
