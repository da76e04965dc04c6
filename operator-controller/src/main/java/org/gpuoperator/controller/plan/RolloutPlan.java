package org.gpuoperator.controller.plan;

import java.util.List;
import java.util.Optional;
import org.gpuoperator.controller.operand.Operand;

/**
 * What a new policy would do, before anything is deployed: per operand whether its pods restart and
 * why, whether the driver unloads, per node what restarts and what is evicted, and the driver
 * upgrade's batches in order.
 *
 * @param driverUnload why the driver modules must be unloaded, empty when they need not
 * @param batches the nodes whose driver restarts, in the order the upgrade starts them
 * @param notStarted the nodes the upgrade would not start, each with the reason
 * @param warnings the policy's warnings and the version matrix's
 * @param notes what the plan cannot see or the upgrade would hold (autoUpgrade off, no baseline)
 */
public record RolloutPlan(
        List<OperandChange> operands,
        Optional<String> driverUnload,
        List<NodeEntry> nodes,
        List<List<String>> batches,
        List<String> notStarted,
        String budget,
        List<String> warnings,
        List<String> notes,
        List<DriverGroup> driverGroups) {

    /** ClusterPolicy mode: one upgrade over every GPU node. */
    public RolloutPlan(
            List<OperandChange> operands,
            Optional<String> driverUnload,
            List<NodeEntry> nodes,
            List<List<String>> batches,
            List<String> notStarted,
            String budget,
            List<String> warnings,
            List<String> notes) {
        this(operands, driverUnload, nodes, batches, notStarted, budget, warnings, notes, null);
    }

    /**
     * NVIDIADriver mode: one NVIDIADriver's nodes, upgraded in a pass of their own under its
     * policy.
     *
     * @param batches its nodes whose driver restarts, in the order the upgrade starts them
     * @param notStarted its nodes the upgrade would not start, each with the reason
     * @param budget its policy's maxParallelUpgrades and maxUnavailable over its nodes
     */
    public record DriverGroup(
            String driver, List<List<String>> batches, List<String> notStarted, String budget) {}

    /** Whether the driver DaemonSets are the NVIDIADrivers' (one upgrade per NVIDIADriver). */
    public boolean nvidiaDriverMode() {
        return driverGroups != null;
    }

    public enum Change {
        UNCHANGED,
        CHANGED,
        ADDED,
        REMOVED,
        /** No current policy to compare with: each pod is compared by its template hash. */
        NO_BASELINE
    }

    /**
     * @param paths where the pod templates differ
     * @param rollout how its pods are replaced
     */
    public record OperandChange(
            Operand operand, Change change, List<String> paths, String rollout, String name) {

        /** The operand's own DaemonSet. */
        public OperandChange(Operand operand, Change change, List<String> paths, String rollout) {
            this(operand, change, paths, rollout, operand.daemonSetName());
        }
    }

    /**
     * @param restarts operand pods that restart on the node (pod name, or the DaemonSet's name
     *     where no pod list was given)
     * @param stops operand pods deleted because their operand is disabled
     * @param driverRestart the driver pod restarts (through the upgrade's states)
     * @param driverRestartOnly it restarts on the restart-only path: its driver configuration
     *     digest is unchanged, so the node is cordoned and the pod replaced, nothing evicted
     * @param driverUnload why the node's driver unloads, or null
     * @param evicts GPU pods evicted before the driver restarts
     * @param waitsFor pods the upgrade waits for (waitForCompletion.podSelector)
     * @param batch the node's batch, 1-based; 0 when none
     */
    public record NodeEntry(
            String name,
            boolean gpuNode,
            List<String> restarts,
            List<String> stops,
            boolean driverRestart,
            boolean driverRestartOnly,
            String driverUnload,
            List<String> evicts,
            List<String> waitsFor,
            int batch,
            String nvidiaDriver) {

        /** ClusterPolicy mode. */
        public NodeEntry(
                String name,
                boolean gpuNode,
                List<String> restarts,
                List<String> stops,
                boolean driverRestart,
                boolean driverRestartOnly,
                String driverUnload,
                List<String> evicts,
                List<String> waitsFor,
                int batch) {
            this(
                    name,
                    gpuNode,
                    restarts,
                    stops,
                    driverRestart,
                    driverRestartOnly,
                    driverUnload,
                    evicts,
                    waitsFor,
                    batch,
                    null);
        }
    }

    /** The plan as the {@code plan} command prints it. */
    public String text() {
        StringBuilder out = new StringBuilder();
        if (!warnings.isEmpty()) {
            out.append("Warnings:\n");
            warnings.forEach(w -> out.append("  warning: ").append(w).append('\n'));
        }
        out.append("Operands:\n");
        for (OperandChange c : operands) {
            out.append("  ")
                    .append(c.name())
                    .append(": ")
                    .append(c.change().name().toLowerCase().replace('_', ' '));
            if (c.change() == Change.CHANGED || c.change() == Change.NO_BASELINE) {
                out.append(", ").append(c.rollout());
            }
            out.append('\n');
            for (String p : c.paths().subList(0, Math.min(10, c.paths().size()))) {
                out.append("      ").append(p).append('\n');
            }
            if (c.paths().size() > 10) {
                out.append("      ... ").append(c.paths().size() - 10).append(" more\n");
            }
        }
        out.append("Driver unload: ").append(driverUnload.orElse("no")).append('\n');
        out.append("Nodes:\n");
        for (NodeEntry n : nodes) {
            out.append("  ").append(n.name()).append(":");
            if (!n.gpuNode()) {
                out.append(" not a GPU node\n");
                continue;
            }
            out.append('\n');
            if (n.nvidiaDriver() != null) {
                out.append("    nvidiadriver: ").append(n.nvidiaDriver()).append('\n');
            }
            out.append("    restarts: ").append(list(n.restarts())).append('\n');
            if (!n.stops().isEmpty()) {
                out.append("    stops: ").append(list(n.stops())).append('\n');
            }
            out.append("    driver unload: ")
                    .append(n.driverUnload() == null ? "no" : "yes (" + n.driverUnload() + ")")
                    .append('\n');
            if (n.driverRestart()) {
                out.append("    driver path: ")
                        .append(
                                n.driverRestartOnly()
                                        ? "restart only (driver configuration unchanged: cordon,"
                                                + " driver pod replaced, nothing evicted)"
                                        : "full (cordon, wait for jobs, evict, driver restarted)")
                        .append('\n');
                if (!n.waitsFor().isEmpty()) {
                    out.append("    waits for: ").append(list(n.waitsFor())).append('\n');
                }
                out.append("    evicts: ").append(list(n.evicts())).append('\n');
                out.append("    batch: ")
                        .append(n.batch() == 0 ? "not started" : Integer.toString(n.batch()))
                        .append('\n');
            }
        }
        if (driverGroups == null) {
            batches(out, "Driver upgrade batches (" + budget + "):\n", batches, notStarted);
        } else if (driverGroups.isEmpty()) {
            out.append("Driver upgrade batches: none (no NVIDIADriver has a GPU node)\n");
        }
        for (DriverGroup g : driverGroups == null ? List.<DriverGroup>of() : driverGroups) {
            batches(
                    out,
                    "Driver upgrade batches of NVIDIADriver "
                            + g.driver()
                            + " ("
                            + g.budget()
                            + "):\n",
                    g.batches(),
                    g.notStarted());
        }
        notes.forEach(n -> out.append("Note: ").append(n).append('\n'));
        out.append("Nothing was changed.\n");
        return out.toString();
    }

    private static void batches(
            StringBuilder out, String title, List<List<String>> batches, List<String> notStarted) {
        out.append(title);
        if (batches.isEmpty()) {
            out.append("  none\n");
        }
        for (int i = 0; i < batches.size(); i++) {
            out.append("  ")
                    .append(i + 1)
                    .append(": ")
                    .append(String.join(", ", batches.get(i)))
                    .append('\n');
        }
        notStarted.forEach(l -> out.append("  not started: ").append(l).append('\n'));
    }

    private static String list(List<String> items) {
        return items.isEmpty() ? "none" : String.join(", ", items);
    }
}
