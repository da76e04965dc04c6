package org.gpuoperator.controller.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.api.v1.DriverUpgradeStatus;
import org.gpuoperator.controller.upgrade.LastGoodVersions;
import org.gpuoperator.controller.upgrade.UpgradeNode;
import org.gpuoperator.controller.upgrade.UpgradePlan;
import org.gpuoperator.controller.upgrade.UpgradeSummary;

/** {@code status.driverUpgrade} from one pass of the upgrade machine; pure. */
public final class UpgradeStatus {

    private UpgradeStatus() {}

    /**
     * The counts, the machine's lines (then the rollback hint) bounded to {@link
     * DriverUpgradeStatus#MAX_LINES}, the last good versions; null when no node is managed.
     */
    public static DriverUpgradeStatus of(
            UpgradePlan plan, List<UpgradeNode> nodes, Map<String, String> lastGood) {
        return of(plan, nodes, lastGood, Map.of());
    }

    /**
     * @param nvidiaDriverOfNode in NVIDIADriver mode, node → its NVIDIADriver (the rollback hint
     *     names that NVIDIADriver's spec.version); empty otherwise
     */
    public static DriverUpgradeStatus of(
            UpgradePlan plan,
            List<UpgradeNode> nodes,
            Map<String, String> lastGood,
            Map<String, String> nvidiaDriverOfNode) {
        if (nodes.isEmpty() && lastGood.isEmpty()) {
            return null;
        }
        UpgradeSummary sum = plan.summary();
        DriverUpgradeStatus s = new DriverUpgradeStatus();
        s.setAutoUpgrade(sum.autoUpgrade());
        s.setInProgress(sum.inProgress());
        s.setDone(sum.done());
        s.setFailed(sum.failed());
        s.setPending(sum.pending());
        List<String> lines = new ArrayList<>(plan.lines());
        LastGoodVersions.rollbackHint(lastGood, nodes, nvidiaDriverOfNode).ifPresent(lines::add);
        int max = DriverUpgradeStatus.MAX_LINES;
        s.setLines(
                lines.isEmpty()
                        ? null
                        : List.copyOf(lines.subList(0, Math.min(max, lines.size()))));
        s.setLinesOmitted(lines.size() > max ? lines.size() - max : null);
        s.setLastGoodVersions(lastGood.isEmpty() ? null : new TreeMap<>(lastGood));
        return s;
    }
}
