package org.gpuoperator.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.gpuoperator.controller.upgrade.UpgradeSummary;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {

    @Test
    void exposesUpstreamMetricNames() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        OperatorMetrics metrics = new OperatorMetrics(registry);
        metrics.reconciled(OperatorMetrics.NOT_READY, 3, true);
        metrics.failed();
        metrics.write("patch", "Node");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains(
                        "gpu_operator_gpu_nodes_total 3.0",
                        "gpu_operator_reconciliation_status -2.0",
                        "gpu_operator_reconciliation_total 2.0",
                        "gpu_operator_reconciliation_failed_total 1.0",
                        "gpu_operator_reconciliation_has_nfd_labels 1.0",
                        "gpu_operator_reconciliation_last_success_ts_seconds ",
                        "gpu_operator_api_writes_total{kind=\"Node\",verb=\"patch\"} 1.0");
        assertThat(metrics.reconciliations()).isEqualTo(2);
    }

    @Test
    void exposesTheDriverUpgradeGaugesWithUpstreamNames() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        OperatorMetrics metrics = new OperatorMetrics(registry);
        metrics.driverUpgrade(new UpgradeSummary(1, 2, 3, 0, 4, true).metrics());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains(
                        "gpu_operator_nodes_upgrades_in_progress 1.0",
                        "gpu_operator_nodes_upgrades_done 2.0",
                        "gpu_operator_nodes_upgrades_failed 3.0",
                        "gpu_operator_nodes_upgrades_available 0.0",
                        "gpu_operator_nodes_upgrades_pending 4.0",
                        "gpu_operator_driver_auto_upgrade_enabled 1.0");
    }
}
