package org.gpuoperator.controller.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.upgrade.UpgradeSummary;

/**
 * The operator's metrics, with upstream's names so that existing dashboards and alerts keep
 * working.
 */
public final class OperatorMetrics {

    /** Values of gpu_operator_reconciliation_status, as upstream. */
    public static final int SUCCESS = 1;

    public static final int NOT_READY = 0;
    public static final int POLICY_UNAVAILABLE = -1;
    public static final int OPERATOR_ERROR = -2;

    private final PrometheusRegistry registry;
    private final Gauge gpuNodes;
    private final Gauge status;
    private final Counter total;
    private final Counter failed;
    private final Gauge lastSuccess;
    private final Gauge hasNfdLabels;
    private final Counter writes;
    private final Counter gateEvaluations;
    private final Counter events;
    private final Gauge nodesWaiting;
    private final Map<String, Gauge> upgrade = new LinkedHashMap<>();

    public OperatorMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        gpuNodes =
                Gauge.builder()
                        .name("gpu_operator_gpu_nodes_total")
                        .help("Number of nodes with GPUs (detected by NFD or simulated)")
                        .register(registry);
        status =
                Gauge.builder()
                        .name("gpu_operator_reconciliation_status")
                        .help(
                                "1 reconciled, 0 operands not ready, -1 ClusterPolicy unavailable, -2 operator error")
                        .register(registry);
        total =
                Counter.builder()
                        .name("gpu_operator_reconciliation_total")
                        .help("Number of ClusterPolicy reconciliations")
                        .register(registry);
        failed =
                Counter.builder()
                        .name("gpu_operator_reconciliation_failed_total")
                        .help("Number of failed ClusterPolicy reconciliations")
                        .register(registry);
        lastSuccess =
                Gauge.builder()
                        .name("gpu_operator_reconciliation_last_success_ts_seconds")
                        .help("Unix time of the last successful reconciliation")
                        .register(registry);
        hasNfdLabels =
                Gauge.builder()
                        .name("gpu_operator_reconciliation_has_nfd_labels")
                        .help("1 if any node carries NFD labels")
                        .register(registry);
        writes =
                Counter.builder()
                        .name("gpu_operator_api_writes_total")
                        .help("API write requests sent by the controller")
                        .labelNames("verb", "kind")
                        .register(registry);
        gateEvaluations =
                Counter.builder()
                        .name("gpu_operator_node_gate_evaluations_total")
                        .help(
                                "Node gate evaluations: grows with node and operand pod events, not with reconciles x nodes")
                        .register(registry);
        events =
                Counter.builder()
                        .name("gpu_operator_events_total")
                        .help(
                                "Kubernetes Events recorded, by outcome: created, updated (a repeat),"
                                        + " rate_limited, queue_full, failed")
                        .labelNames("result")
                        .register(registry);
        nodesWaiting =
                Gauge.builder()
                        .name("gpu_operator_nodes_waiting")
                        .help(
                                "GPU nodes whose pipeline waits at this gate (an operand not ready"
                                        + " on the node), as the ClusterPolicy status's stuckNodes")
                        .labelNames("gate")
                        .register(registry);
        registerUpgradeGauges();
    }

    /** Nodes per gate they wait at, every gate set (0 too: alerts need the series to exist). */
    public void nodesWaiting(Map<Operand, Integer> byGate) {
        byGate.forEach((gate, n) -> nodesWaiting.labelValues(gate.id()).set(n));
    }

    /** Nodes waiting at {@code gate} (tests). */
    public double nodesWaiting(Operand gate) {
        return nodesWaiting.labelValues(gate.id()).get();
    }

    private void registerUpgradeGauges() {
        Map<String, String> help = new LinkedHashMap<>();
        help.put(
                UpgradeSummary.IN_PROGRESS,
                "Nodes with a driver upgrade between cordon and uncordon");
        help.put(UpgradeSummary.DONE, "Nodes in upgrade-done");
        help.put(UpgradeSummary.FAILED, "Nodes in upgrade-failed");
        help.put(
                UpgradeSummary.AVAILABLE,
                "How many more nodes may start their driver upgrade now (maxParallelUpgrades,"
                        + " maxUnavailable)");
        help.put(UpgradeSummary.PENDING, "Nodes that need the new driver and have not started");
        help.put(
                UpgradeSummary.AUTO_UPGRADE_ENABLED,
                "1 if spec.driver.upgradePolicy.autoUpgrade is true");
        help.forEach(
                (name, text) ->
                        upgrade.put(
                                name, Gauge.builder().name(name).help(text).register(registry)));
    }

    /** The driver upgrade's figures ({@link UpgradeSummary#metrics()}), upstream's names. */
    public void driverUpgrade(Map<String, Double> figures) {
        figures.forEach(
                (name, value) -> {
                    Gauge g = upgrade.get(name);
                    if (g != null) {
                        g.set(value);
                    }
                });
    }

    /** A driver upgrade gauge's value (tests). */
    public double driverUpgradeGauge(String name) {
        return upgrade.get(name).get();
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public void reconciled(int outcome, int gpuNodeCount, boolean nfd) {
        total.inc();
        status.set(outcome);
        gpuNodes.set(gpuNodeCount);
        hasNfdLabels.set(nfd ? 1 : 0);
        if (outcome == SUCCESS || outcome == NOT_READY) {
            lastSuccess.set(System.currentTimeMillis() / 1000.0);
        }
    }

    public void policyUnavailable() {
        total.inc();
        status.set(POLICY_UNAVAILABLE);
    }

    public void failed() {
        total.inc();
        failed.inc();
        status.set(OPERATOR_ERROR);
    }

    /** Reconciliations so far (all outcomes). */
    public long reconciliations() {
        return total.getLongValue();
    }

    public void write(String verb, String kind) {
        writes.labelValues(verb, kind).inc();
    }

    public void gateEvaluated(int nodes) {
        gateEvaluations.inc(nodes);
    }

    public long gateEvaluations() {
        return gateEvaluations.getLongValue();
    }

    /** One recorded Event's outcome ({@code AsyncEventRecorder}). */
    public void event(String result) {
        events.labelValues(result).inc();
    }

    /** Events with this outcome so far (tests). */
    public long events(String result) {
        return (long) events.labelValues(result).get();
    }
}
