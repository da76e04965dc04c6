package org.gpuoperator.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * deploy/prometheus: the alert rules pass Prometheus's own {@code promtool check rules} and the
 * unit tests beside them ({@code promtool test rules}), every alert has a test, and every operator
 * metric a rule reads is one the controller registers. promtool is Debian's {@code prometheus}
 * package, which {@code .ci/run} installs; without it the promtool tests skip, saying so.
 */
class AlertRulesTest {

    static final Path DIR = Path.of("..", "deploy", "prometheus");
    static final Path RULES = DIR.resolve("gpu-operator-rules.yaml");
    static final Path TESTS = DIR.resolve("gpu-operator-rules.test.yaml");

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        Result r = promtool("check", "rules", RULES.getFileName().toString());
        assertThat(r.exit).as(r.out).isZero();
        assertThat(r.out).contains("SUCCESS: " + alerts(RULES).size() + " rules found");
    }

    @Test
    void promtoolsUnitTestsOfEveryAlertPass() throws Exception {
        Result r = promtool("test", "rules", TESTS.getFileName().toString());
        assertThat(r.exit).as(r.out).isZero();
        assertThat(r.out).contains("SUCCESS");
    }

    @Test
    void everyAlertHasAUnitTest() throws IOException {
        Set<String> tested = matches(TESTS, "alertname: (\\w+)");
        assertThat(tested).containsAll(alerts(RULES));
        assertThat(alerts(RULES))
                .contains(
                        "GPUOperatorReconciliationFailed",
                        "GPUOperatorNfdLabelsMissing",
                        "GPUOperatorNodesWaitingAtGate",
                        "GPUOperatorDriverUpgradeFailed",
                        "GPUXidError",
                        "GPUUnhealthy",
                        "GPUExporterDown");
    }

    @Test
    void theOperatorMetricsTheRulesReadAreRegistered() throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        new OperatorMetrics(registry);
        Set<String> registered =
                registry.scrape().stream()
                        .map(MetricSnapshot::getMetadata)
                        .map(m -> m.getPrometheusName())
                        .collect(Collectors.toSet());
        Set<String> read = matches(RULES, "expr: .*?(gpu_operator_\\w+)");
        assertThat(read).isNotEmpty();
        assertThat(registered).containsAll(read);
    }

    private static Set<String> alerts(Path file) throws IOException {
        return matches(file, "- alert: (\\w+)");
    }

    private static Set<String> matches(Path file, String regex) throws IOException {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile(regex).matcher(Files.readString(file));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private record Result(int exit, String out) {}

    private static Result promtool(String... args) throws Exception {
        Path promtool = onPath("promtool");
        assumeTrue(
                promtool != null,
                "promtool not found: apt-get install prometheus (as .ci/run does) to run the alert"
                        + " rule tests");
        List<String> cmd = new ArrayList<>(List.of(promtool.toString()));
        cmd.addAll(List.of(args));
        Process p =
                new ProcessBuilder(cmd).directory(DIR.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool ends").isTrue();
        return new Result(p.exitValue(), out);
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, name);
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
