package org.gpuoperator.controller.upgrade;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import org.gpuoperator.api.common.DrainSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.PodDeletionSpec;
import org.gpuoperator.api.common.WaitForCompletionSpec;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;

/**
 * {@code spec.driver.upgradePolicy}, read once: defaults filled, selectors parsed. A zero timeout
 * waits forever (upstream's meaning).
 *
 * @param maxParallelUpgrades 0 = unlimited
 * @param validationTimeout how long the validator may take on an upgraded node (upstream: 600 s)
 * @param driverRestartLimit restarts of a new driver pod that is not Ready before the node fails
 *     (upstream: 10)
 */
public record UpgradePolicy(
        boolean autoUpgrade,
        int maxParallelUpgrades,
        MaxUnavailable maxUnavailable,
        PodDeletion podDeletion,
        WaitForCompletion waitForCompletion,
        Drain drain,
        Duration validationTimeout,
        int driverRestartLimit) {

    public static final String FIELD = "spec.driver.upgradePolicy";
    public static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(600);
    public static final int DRIVER_RESTART_LIMIT = 10;

    public record PodDeletion(boolean force, Duration timeout, boolean deleteEmptyDir) {}

    public record WaitForCompletion(PodSelector podSelector, Duration timeout) {
        /** No selector: nothing to wait for. */
        public boolean enabled() {
            return !podSelector.selectsAll();
        }
    }

    public record Drain(
            boolean enable,
            boolean force,
            PodSelector podSelector,
            Duration timeout,
            boolean deleteEmptyDir) {}

    /** A count, or a percentage of the managed nodes rounded up. */
    public record MaxUnavailable(int value, boolean percent) {
        public int of(int managedNodes) {
            return percent ? (int) Math.ceil(value * (double) managedNodes / 100.0) : value;
        }

        @Override
        public String toString() {
            return percent ? value + "%" : Integer.toString(value);
        }

        /**
         * @throws IllegalArgumentException naming the field when it is neither a count nor a
         *     percentage
         */
        public static MaxUnavailable parse(IntOrString v) {
            if (v == null) {
                return parse(new IntOrString(ClusterPolicyDefaults.UPGRADE_MAX_UNAVAILABLE));
            }
            if (v.getIntVal() != null) {
                return count(v.getIntVal());
            }
            String s = v.getStrVal() == null ? "" : v.getStrVal().trim();
            if (!s.matches("[0-9]+%?")) {
                throw new IllegalArgumentException(
                        FIELD
                                + ".maxUnavailable: '"
                                + s
                                + "' is neither a count nor a percentage (e.g. 2 or 25%)");
            }
            return s.endsWith("%")
                    ? new MaxUnavailable(Integer.parseInt(s.substring(0, s.length() - 1)), true)
                    : count(Integer.parseInt(s));
        }

        private static MaxUnavailable count(int n) {
            if (n < 0) {
                throw new IllegalArgumentException(FIELD + ".maxUnavailable: negative: " + n);
            }
            return new MaxUnavailable(n, false);
        }
    }

    /**
     * The policy of a spec section (null: all defaults).
     *
     * @throws IllegalArgumentException naming the field that cannot be read
     */
    public static UpgradePolicy from(DriverUpgradePolicySpec spec) {
        return from(spec, false);
    }

    /**
     * An NVIDIADriver's {@code spec.upgradePolicy}: as {@link #from}, but an unset {@code
     * autoUpgrade} is true, the default of upstream's NVIDIADriver CRD (the ClusterPolicy's is
     * false).
     *
     * @throws IllegalArgumentException naming the field that cannot be read
     */
    public static UpgradePolicy ofNvidiaDriver(DriverUpgradePolicySpec spec) {
        return from(spec, true);
    }

    private static UpgradePolicy from(DriverUpgradePolicySpec spec, boolean autoUpgradeDefault) {
        DriverUpgradePolicySpec s = spec == null ? new DriverUpgradePolicySpec() : spec;
        PodDeletionSpec pd =
                s.getPodDeletion() == null ? new PodDeletionSpec() : s.getPodDeletion();
        WaitForCompletionSpec wc =
                s.getWaitForCompletion() == null
                        ? new WaitForCompletionSpec()
                        : s.getWaitForCompletion();
        DrainSpec dr = s.getDrain() == null ? new DrainSpec() : s.getDrain();
        int parallel = or(s.getMaxParallelUpgrades(), ClusterPolicyDefaults.UPGRADE_MAX_PARALLEL);
        if (parallel < 0) {
            throw new IllegalArgumentException(
                    FIELD + ".maxParallelUpgrades: negative: " + parallel);
        }
        return new UpgradePolicy(
                s.getAutoUpgrade() == null ? autoUpgradeDefault : s.getAutoUpgrade(),
                parallel,
                MaxUnavailable.parse(s.getMaxUnavailable()),
                new PodDeletion(
                        Boolean.TRUE.equals(pd.getForce()),
                        seconds(
                                pd.getTimeoutSeconds(),
                                ClusterPolicyDefaults.POD_DELETION_TIMEOUT_SECONDS),
                        Boolean.TRUE.equals(pd.getDeleteEmptyDir())),
                new WaitForCompletion(
                        PodSelector.parse(
                                FIELD + ".waitForCompletion.podSelector", wc.getPodSelector()),
                        seconds(wc.getTimeoutSeconds(), 0)),
                new Drain(
                        Boolean.TRUE.equals(dr.getEnable()),
                        Boolean.TRUE.equals(dr.getForce()),
                        PodSelector.parse(FIELD + ".drain.podSelector", dr.getPodSelector()),
                        seconds(
                                dr.getTimeoutSeconds(),
                                ClusterPolicyDefaults.DRAIN_TIMEOUT_SECONDS),
                        Boolean.TRUE.equals(dr.getDeleteEmptyDir())),
                VALIDATION_TIMEOUT,
                DRIVER_RESTART_LIMIT);
    }

    /** One line, the policy as acted on (render prints it). */
    public String describe() {
        return "autoUpgrade "
                + autoUpgrade
                + ", maxParallelUpgrades "
                + (maxParallelUpgrades == 0 ? "unlimited" : maxParallelUpgrades)
                + ", maxUnavailable "
                + maxUnavailable
                + ", podDeletion {force "
                + podDeletion.force()
                + ", timeoutSeconds "
                + podDeletion.timeout().toSeconds()
                + ", deleteEmptyDir "
                + podDeletion.deleteEmptyDir()
                + "}, waitForCompletion {podSelector '"
                + waitForCompletion.podSelector()
                + "', timeoutSeconds "
                + waitForCompletion.timeout().toSeconds()
                + "}, drain {enable "
                + drain.enable()
                + ", force "
                + drain.force()
                + ", podSelector '"
                + drain.podSelector()
                + "', timeoutSeconds "
                + drain.timeout().toSeconds()
                + ", deleteEmptyDir "
                + drain.deleteEmptyDir()
                + "}";
    }

    /** The defaults with autoUpgrade on (tests and the planner's starting point). */
    public static UpgradePolicy defaultsWithAutoUpgrade() {
        DriverUpgradePolicySpec s = new DriverUpgradePolicySpec();
        s.setAutoUpgrade(true);
        return from(s);
    }

    private static int or(Integer v, int def) {
        return v == null ? def : v;
    }

    private static Duration seconds(Integer v, int def) {
        return Duration.ofSeconds(v == null ? def : Math.max(0, v));
    }
}
