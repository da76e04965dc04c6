package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.metrics.DashboardQueries;
import org.gpuoperator.e2e.metrics.Prometheus;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: a real Prometheus (Debian's {@code prometheus}) scrapes the simulated node's exporter
 * and the controller's metrics endpoint and evaluates deploy/prometheus/gpu-operator-rules.yaml as
 * it is: every query of both dashboards in deploy/dashboards returns data, and an injected XID
 * makes GPUXidError fire through Prometheus's own rule evaluation, then resolve. One GPU node.
 * Skipped, saying so, where Prometheus is not installed.
 */
class PrometheusScenariosIT {

    private static final String NODE = "gpu-node-1";
    private static final int XID_GPU = 3;
    private static final Duration CONVERGE = Duration.ofMinutes(3);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern METRIC_NAME =
            Pattern.compile("\\b(DCGM_FI_\\w+|gpu_operator_\\w+)");

    @Test
    void prometheusScrapesTheClusterAnswersTheDashboardsAndFiresTheXidAlert() throws Exception {
        Optional<Path> binary = Prometheus.binary();
        assumeTrue(
                binary.isPresent(),
                "prometheus not installed: apt-get install prometheus (as .ci/run does) to run this"
                        + " scenario");
        Path repo = RepoRoot.find();
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        ControllerRuntime[] controller = new ControllerRuntime[1];
        SimulatedCluster.Options options =
                new SimulatedCluster.Options(
                        repo,
                        true,
                        client -> {
                            // the in-process controller with its metrics endpoint, as the
                            // Deployment's --metrics-bind-address
                            controller[0] =
                                    ControllerRuntime.start(
                                            client,
                                            new ControllerRuntime.Config(
                                                    SimulatedCluster.NAMESPACE,
                                                    false,
                                                    new InetSocketAddress("127.0.0.1", 0),
                                                    null,
                                                    Map.of()));
                            return controller[0];
                        },
                        events::add);
        long t0 = System.nanoTime();
        try (SimulatedCluster cluster = SimulatedCluster.start(options)) {
            SimulatedNode node = cluster.addGpuNode(NODE);
            cluster.startController();
            GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
            // sample every second, so that Prometheus sees an XID within seconds
            section(Scenarios.spec(cp), "dcgmExporter")
                    .put("args", List.of("--collect-interval=1000"));
            // the exporter's gate needs the driver and the toolkit (its runtime class) only: the
            // other operands, off, cost this run no minute
            for (String off : List.of("devicePlugin", "gfd", "migManager")) {
                section(Scenarios.spec(cp), off).put("enabled", false);
            }
            cluster.client()
                    .genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();
            phase("cluster started, policy applied", t0);
            String exporter = awaitExporter(cluster, node);
            phase("exporter serves samples", t0);
            String operator = "127.0.0.1:" + controller[0].metricsPort();
            try (Prometheus prometheus =
                    Prometheus.start(
                            binary.get(),
                            cluster.workDir().resolve("prometheus"),
                            List.of(
                                    new Prometheus.ScrapeJob(
                                            "nvidia-dcgm-exporter", List.of(exporter)),
                                    new Prometheus.ScrapeJob("gpu-operator", List.of(operator))),
                            List.of(repo.resolve("deploy/prometheus/gpu-operator-rules.yaml")),
                            Duration.ofSeconds(1))) {
                try {
                    scrapesBothJobs(prometheus);
                    phase("prometheus scrapes both jobs", t0);
                    everyDashboardQueryReturnsData(prometheus, repo, exporter);
                    phase("every dashboard query has data", t0);
                    anXidFiresTheAlertAndRecoveryResolvesIt(prometheus, node);
                    phase("the XID alert fired and resolved", t0);
                } catch (AssertionError | RuntimeException e) {
                    System.out.println("prometheus log:\n" + prometheus.logText());
                    throw e;
                }
            }
        } catch (AssertionError | RuntimeException e) {
            Scenarios.printLastEvents(events, 80);
            throw e;
        }
    }

    private static void phase(String what, long t0) {
        System.out.printf("=== %s after %.1f s%n", what, (System.nanoTime() - t0) / 1e9);
    }

    /** The exporter pod's {@code host:port} once it serves GPU samples. */
    private static String awaitExporter(SimulatedCluster cluster, SimulatedNode node) {
        String[] endpoint = new String[1];
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Pod pod =
                                    Scenarios.operandPod(cluster, node.name(), "dcgm-exporter")
                                            .orElseThrow(
                                                    () -> new AssertionError("no exporter pod"));
                            String hostPort =
                                    node.pods()
                                            .endpoint(pod.getMetadata().getName(), 9400)
                                            .orElseThrow(() -> new AssertionError("not running"));
                            assertThat(scrape(hostPort)).contains("DCGM_FI_DEV_GPU_UTIL{");
                            endpoint[0] = hostPort;
                        });
        return endpoint[0];
    }

    private static String scrape(String hostPort) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://" + hostPort + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static void scrapesBothJobs(Prometheus prometheus) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            Map<String, String> up = new LinkedHashMap<>();
                            for (JsonNode s : prometheus.query("up")) {
                                up.put(
                                        s.path("metric").path("job").asText(),
                                        s.path("value").get(1).asText());
                            }
                            assertThat(up)
                                    .containsEntry("nvidia-dcgm-exporter", "1")
                                    .containsEntry("gpu-operator", "1");
                        });
    }

    /**
     * Every target of both dashboards, its variables set as Grafana would with "All" selected,
     * returns at least one series. The only ones allowed none are the official dashboard's
     * profiling queries while the exporter does not export their DCGM_FI_PROF_* field: the test
     * reads the exporter's own scrape to tell.
     */
    private static void everyDashboardQueryReturnsData(
            Prometheus prometheus, Path repo, String exporter) throws Exception {
        String exported = scrape(exporter);
        List<String> expectedEmpty = new ArrayList<>();
        Map<String, String> queries = new LinkedHashMap<>();
        for (String file : List.of("dcgm-exporter-dashboard.json", "gpu-operator-dashboard.json")) {
            JsonNode dashboard =
                    JSON.readTree(repo.resolve("deploy/dashboards").resolve(file).toFile());
            Map<String, String> values = new LinkedHashMap<>();
            for (DashboardQueries.LabelValuesVariable v : DashboardQueries.variables(dashboard)) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !prometheus.labelValues(v.label(), v.match()).isEmpty());
                values.put(
                        v.name(),
                        DashboardQueries.allValuesRegex(
                                prometheus.labelValues(v.label(), v.match())));
            }
            for (DashboardQueries.Query q : DashboardQueries.queries(dashboard)) {
                String promql = DashboardQueries.substitute(q.expr(), values);
                String key = file + " / " + q.panel() + ": " + promql;
                queries.put(key, promql);
                Matcher m = METRIC_NAME.matcher(promql);
                while (m.find()) {
                    if (m.group(1).startsWith("DCGM_FI_PROF_")
                            && !exported.contains(m.group(1) + "{")) {
                        expectedEmpty.add(key);
                    }
                }
            }
        }
        System.out.println(
                "dashboard queries with no data allowed (profiling fields the exporter does not"
                        + " export): "
                        + expectedEmpty);
        Set<String> empty = new TreeSet<>();
        // rate() needs two samples in its window: a few scrapes
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            empty.clear();
                            for (Map.Entry<String, String> q : queries.entrySet()) {
                                if (prometheus.query(q.getValue()).isEmpty()) {
                                    empty.add(q.getKey());
                                }
                            }
                            assertThat(empty)
                                    .as("dashboard queries that return no data")
                                    .allMatch(expectedEmpty::contains);
                        });
        assertThat(queries).as("8 official and 15 operator dashboard targets").hasSize(23);
        assertThat(expectedEmpty)
                .as("only the official dashboard's profiling panels may lack data")
                .allMatch(k -> k.contains("DCGM_FI_PROF_"));
    }

    private static void anXidFiresTheAlertAndRecoveryResolvesIt(
            Prometheus prometheus, SimulatedNode node) {
        assertThat(xidAlerts(prometheus)).as("no XID alert before the fault").isEmpty();
        node.faults().injectXid(XID_GPU, 79);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            List<JsonNode> alerts = xidAlerts(prometheus);
                            assertThat(alerts).hasSize(1);
                            JsonNode a = alerts.getFirst();
                            assertThat(a.path("state").asText()).isEqualTo("firing");
                            assertThat(a.path("labels").path("severity").asText())
                                    .isEqualTo("critical");
                            assertThat(a.path("labels").path("gpu").asText())
                                    .isEqualTo(String.valueOf(XID_GPU));
                            assertThat(a.path("labels").path("UUID").asText())
                                    .isEqualTo(SimulatedGpuInventory.gpuUuid(node.name(), XID_GPU));
                            assertThat(a.path("labels").path("Hostname").asText())
                                    .isEqualTo(node.name());
                            assertThat(a.path("annotations").path("summary").asText())
                                    .contains("reported XID 79");
                        });
        node.faults().recover(XID_GPU);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(xidAlerts(prometheus)).isEmpty());
    }

    private static List<JsonNode> xidAlerts(Prometheus prometheus) {
        try {
            return prometheus.alerts().stream()
                    .filter(a -> "GPUXidError".equals(a.path("labels").path("alertname").asText()))
                    .toList();
        } catch (Exception e) {
            throw new AssertionError("alerts: " + e.getMessage(), e);
        }
    }
}
