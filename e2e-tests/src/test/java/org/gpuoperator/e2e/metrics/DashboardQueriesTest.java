package org.gpuoperator.e2e.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.Test;

class DashboardQueriesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode dashboard(String name) throws Exception {
        Path p = RepoRoot.find().resolve("deploy/dashboards").resolve(name);
        return JSON.readTree(p.toFile());
    }

    @Test
    void theOfficialExporterDashboardsQueriesAndVariables() throws Exception {
        JsonNode d = dashboard("dcgm-exporter-dashboard.json");
        List<DashboardQueries.Query> queries = DashboardQueries.queries(d);
        assertThat(queries)
                .extracting(DashboardQueries.Query::expr)
                .hasSize(8)
                .contains(
                        "DCGM_FI_DEV_GPU_TEMP{instance=~\"$instance\", gpu=~\"$gpu\"}",
                        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{instance=~\"$instance\", gpu=~\"$gpu\"}");
        assertThat(DashboardQueries.variables(d))
                .containsExactly(
                        new DashboardQueries.LabelValuesVariable(
                                "instance", "DCGM_FI_DEV_GPU_TEMP", "instance"),
                        new DashboardQueries.LabelValuesVariable(
                                "gpu", "DCGM_FI_DEV_GPU_TEMP", "gpu"));
    }

    @Test
    void theOperatorDashboardCoversGatesStuckNodesReconcilesAndUpgrades() throws Exception {
        List<String> exprs =
                DashboardQueries.queries(dashboard("gpu-operator-dashboard.json")).stream()
                        .map(DashboardQueries.Query::expr)
                        .toList();
        assertThat(String.join("\n", exprs))
                .contains("gpu_operator_nodes_waiting")
                .contains("min_over_time(gpu_operator_nodes_waiting[15m])")
                .contains("rate(gpu_operator_reconciliation_total[$__rate_interval])")
                .contains("gpu_operator_nodes_upgrades_failed");
        assertThat(DashboardQueries.variables(dashboard("gpu-operator-dashboard.json"))).isEmpty();
    }

    @Test
    void nestedRowPanelsAreWalkedAndBlankTargetsSkipped() throws Exception {
        JsonNode d =
                JSON.readTree(
                        """
                        {"panels": [
                          {"title": "row", "type": "row", "panels": [
                            {"title": "inner", "targets": [{"expr": "up"}, {"expr": ""}]}]},
                          {"title": "top", "targets": [{"expr": "sum(up)"}]}]}
                        """);
        assertThat(DashboardQueries.queries(d))
                .containsExactly(
                        new DashboardQueries.Query("inner", "up"),
                        new DashboardQueries.Query("top", "sum(up)"));
    }

    @Test
    void variablesInEveryFormAreSubstitutedAndAnUnknownOneIsNamed() {
        assertThat(
                        DashboardQueries.substitute(
                                "rate(x{gpu=~\"$gpu\",i=~\"${instance:regex}\",j=\"[[job]]\"}[$__rate_interval])",
                                Map.of("gpu", "(0|1)", "instance", "a", "job", "j1")))
                .isEqualTo("rate(x{gpu=~\"(0|1)\",i=~\"a\",j=\"j1\"}[1m])");
        assertThatThrownBy(() -> DashboardQueries.substitute("x{a=\"$nope\"}", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("$nope");
    }

    @Test
    void allValuesBecomeAnEscapedAlternation() {
        assertThat(DashboardQueries.allValuesRegex(List.of("10.88.1.5:9400", "b")))
                .isEqualTo("(10\\\\.88\\\\.1\\\\.5:9400|b)");
        assertThatThrownBy(() -> DashboardQueries.allValuesRegex(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aVariableThatIsNotLabelValuesIsRefusedByName() throws Exception {
        JsonNode d =
                JSON.readTree(
                        """
                        {"templating": {"list": [
                          {"name": "q", "type": "query", "query": {"query": "query_result(up)"}},
                          {"name": "ds", "type": "datasource", "query": "prometheus"}]}}
                        """);
        assertThatThrownBy(() -> DashboardQueries.variables(d))
                .hasMessageContaining("variable q")
                .hasMessageContaining("query_result(up)");
        JsonNode plain =
                JSON.readTree(
                        """
                        {"templating": {"list": [
                          {"name": "node", "type": "query", "query": {"query": "label_values(Hostname)"}}]}}
                        """);
        assertThat(DashboardQueries.variables(plain))
                .containsExactly(
                        new DashboardQueries.LabelValuesVariable(
                                "node", "{Hostname!=\"\"}", "Hostname"));
    }

    @Test
    void theConfigNamesTheJobsTheRulesAndTheIntervals() {
        String yaml =
                Prometheus.config(
                        List.of(
                                new Prometheus.ScrapeJob(
                                        "nvidia-dcgm-exporter", List.of("10.88.1.5:9400"))),
                        List.of(Path.of("/r/rules.yaml")),
                        java.time.Duration.ofSeconds(1));
        assertThat(yaml)
                .contains("scrape_interval: \"1000ms\"")
                .contains("evaluation_interval: \"1000ms\"")
                .contains("- \"/r/rules.yaml\"")
                .contains("job_name: \"nvidia-dcgm-exporter\"")
                .contains("- \"10.88.1.5:9400\"");
    }
}
