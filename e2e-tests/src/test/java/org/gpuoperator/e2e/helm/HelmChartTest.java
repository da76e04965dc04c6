package org.gpuoperator.e2e.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Helm chart (deploy/helm/gpu-operator) through a real Helm, in-process (helm-java): lint, and
 * templates compared as parsed objects with what {@code kubectl apply -k deploy} and the default
 * policy create.
 */
class HelmChartTest {

    static final Path REPO = HelmValuesSchemaTest.REPO;
    static final Path CHART = HelmValuesSchemaTest.CHART;
    static final Path DEPLOY = REPO.resolve("deploy");
    static final String NAMESPACE = "gpu-operator";
    private static final YAMLMapper YAML = new YAMLMapper();

    @Test
    void lintPassesStrict() {
        LintResult lint = new Helm(CHART).lint().strict().call();
        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    }

    /**
     * helm install with the default values creates what kubectl apply -k deploy does, plus
     * deploy/samples/clusterpolicy-default.yaml. Helm installs crds/ as they are (checked below);
     * the namespace is not the chart's (helm install -n gpu-operator needs it first: README).
     */
    @Test
    void defaultValuesTemplateTheKustomizeObjectsAndTheDefaultPolicy() throws Exception {
        Map<String, Map<String, Object>> expected = new TreeMap<>();
        for (Map<String, Object> o : kustomize()) {
            String kind = (String) o.get("kind");
            if (!kind.equals("CustomResourceDefinition") && !kind.equals("Namespace")) {
                expected.put(key(o), o);
            }
        }
        for (Map<String, Object> o :
                parse(Files.readString(DEPLOY.resolve("samples/clusterpolicy-default.yaml")))) {
            expected.put(key(o), o);
        }
        Map<String, Map<String, Object>> actual = byKey(template(template()));
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        expected.forEach((k, o) -> assertThat(actual.get(k)).as(k).isEqualTo(o));
    }

    @Test
    void chartCrdsAreDeploysCrds() throws Exception {
        if (Boolean.getBoolean("helm.chart.update")) {
            for (String name : fileNames(CHART.resolve("crds"))) {
                Files.delete(CHART.resolve("crds").resolve(name));
            }
            for (String name : fileNames(DEPLOY.resolve("crds"))) {
                Files.copy(
                        DEPLOY.resolve("crds").resolve(name), CHART.resolve("crds").resolve(name));
            }
        }
        List<String> chartCrds = fileNames(CHART.resolve("crds"));
        assertThat(chartCrds)
                .as("chart crds/ vs deploy/crds: run %s", HelmValuesSchemaTest.REFRESH)
                .isEqualTo(fileNames(DEPLOY.resolve("crds")));
        for (String name : chartCrds) {
            assertThat(CHART.resolve("crds").resolve(name))
                    .as(
                            "chart crds/%s differs from deploy/crds: run %s",
                            name, HelmValuesSchemaTest.REFRESH)
                    .hasSameBinaryContentAs(DEPLOY.resolve("crds").resolve(name));
        }
    }

    @Test
    void chartAlertRulesAreDeploysRules() throws Exception {
        Path chartRules = CHART.resolve("files/gpu-operator-rules.yaml");
        Path rules = DEPLOY.resolve("prometheus/gpu-operator-rules.yaml");
        if (Boolean.getBoolean("helm.chart.update")) {
            Files.copy(rules, chartRules, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        assertThat(chartRules)
                .as(
                        "chart files/ differs from deploy/prometheus: run %s",
                        HelmValuesSchemaTest.REFRESH)
                .hasSameBinaryContentAs(rules);
    }

    /** operator.prometheusRule: the alert rules, group for group, as a PrometheusRule. */
    @Test
    void prometheusRuleEnabledTemplatesTheAlertRulesWithTheGivenLabels() throws Exception {
        Map<String, Map<String, Object>> objects =
                byKey(
                        template(
                                template()
                                        .set("operator.prometheusRule.enabled", "true")
                                        .set(
                                                "operator.prometheusRule.additionalLabels.release",
                                                "kube-prometheus-stack")));
        Map<String, Object> rule = objects.get("PrometheusRule/gpu-operator/gpu-operator-rules");
        assertThat(rule).as("the PrometheusRule among %s", objects.keySet()).isNotNull();
        assertThat(rule).containsEntry("apiVersion", "monitoring.coreos.com/v1");
        assertThat((Object) at(rule, "metadata", "labels"))
                .isEqualTo(Map.of("app", "gpu-operator", "release", "kube-prometheus-stack"));
        Map<?, ?> file =
                YAML.readValue(
                        DEPLOY.resolve("prometheus/gpu-operator-rules.yaml").toFile(), Map.class);
        assertThat((Object) at(rule, "spec", "groups")).isEqualTo(file.get("groups"));
        assertThat(byKey(template(template())).keySet())
                .as("off by default")
                .noneMatch(k -> k.startsWith("PrometheusRule/"));
        // the controller renders the same object with the operator's ServiceMonitor
        assertThatThrownBy(
                        () ->
                                template(
                                        template()
                                                .set("operator.prometheusRule.enabled", "true")
                                                .set(
                                                        "operator.metrics.serviceMonitor.enabled",
                                                        "true")))
                .hasMessageContaining(
                        "the controller renders the PrometheusRule gpu-operator-rules");
    }

    /**
     * operator.metrics.serviceMonitor, as upstream's chart: passed into the default ClusterPolicy's
     * spec.operator.metrics, from which the controller renders the operator's ServiceMonitor.
     */
    @Test
    void operatorMetricsServiceMonitorValuesReachThePolicy() throws Exception {
        Map<String, Map<String, Object>> objects =
                byKey(
                        template(
                                template()
                                        .set("operator.metrics.serviceMonitor.enabled", "true")
                                        .set("operator.metrics.serviceMonitor.interval", "15s")
                                        .set("operator.metrics.serviceMonitor.honorLabels", "true")
                                        .set(
                                                "operator.metrics.serviceMonitor.additionalLabels.release",
                                                "kube-prometheus-stack")));
        Map<String, Object> policy =
                objects.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("ClusterPolicy/"))
                        .map(Map.Entry::getValue)
                        .findFirst()
                        .orElseThrow();
        assertThat((Object) at(policy, "spec", "operator", "metrics"))
                .isEqualTo(
                        Map.of(
                                "serviceMonitor",
                                Map.of(
                                        "enabled",
                                        true,
                                        "interval",
                                        "15s",
                                        "honorLabels",
                                        true,
                                        "additionalLabels",
                                        Map.of("release", "kube-prometheus-stack"))));
    }

    @Test
    void aMistypedKeyFailsNamingIt() {
        assertThatThrownBy(() -> template(template().set("driver.enabeld", "false")))
                .hasMessageContaining("values don't meet the specifications of the schema")
                .hasMessageContaining("at '/driver': additional properties 'enabeld' not allowed");
        assertThatThrownBy(() -> template(template().set("operator.imagee", "x")))
                .hasMessageContaining("imagee");
    }

    @Test
    void aValueOfTheWrongTypeFailsNamingIt() {
        assertThatThrownBy(() -> template(template().set("driver.enabled", "yes")))
                .hasMessageContaining("at '/driver/enabled': got string, want boolean");
        assertThatThrownBy(() -> template(template().set("mig.strategy", "double")))
                .hasMessageContaining("/mig/strategy");
    }

    @Test
    void setValuesReachTheClusterPolicyAndNothingElseChanges() throws Exception {
        Map<String, Map<String, Object>> defaults = byKey(template(template()));
        Map<String, Map<String, Object>> changed =
                byKey(template(template().set("driver.enabled", "false")));
        Map<String, Object> spec = spec(changed.get("ClusterPolicy//cluster-policy"));
        assertThat((Object) at(spec, "driver", "enabled")).isEqualTo(false);
        Map<String, Object> defaultSpec = spec(defaults.get("ClusterPolicy//cluster-policy"));
        assertThat((Object) at(defaultSpec, "driver", "enabled")).isEqualTo(true);
        HelmChartTest.<Map<String, Object>>at(defaultSpec, "driver").put("enabled", false);
        assertThat(spec).isEqualTo(defaultSpec);
        changed.remove("ClusterPolicy//cluster-policy");
        defaults.remove("ClusterPolicy//cluster-policy");
        assertThat(changed).isEqualTo(defaults);
    }

    @Test
    void aValuesFileReachesThePolicyAndTheOperatorDeployment(@TempDir Path dir) throws Exception {
        Path values = dir.resolve("values.yaml");
        Files.writeString(
                values,
                """
                operator:
                  version: 0.2.0
                  runtimeClass: nvidia-gpu
                simulation:
                  enabled: true
                  profile: t4-x1
                """);
        Map<String, Map<String, Object>> objects =
                byKey(template(template().withValuesFile(values)));
        Map<String, Object> spec = spec(objects.get("ClusterPolicy//cluster-policy"));
        assertThat((Object) at(spec, "operator")).isEqualTo(Map.of("runtimeClass", "nvidia-gpu"));
        assertThat((Object) at(spec, "simulation"))
                .isEqualTo(Map.of("enabled", true, "profile", "t4-x1"));
        assertThat(containers(objects.get("Deployment/gpu-operator/gpu-operator")).getFirst())
                .containsEntry("image", "ghcr.io/gpu-operator-java/operator-controller:0.2.0");
    }

    @Test
    void upstreamsNvidiaDriverCrdValuesTurnTheModeOnAndRenderTheDefaultNvidiaDriver()
            throws Exception {
        Map<String, Map<String, Object>> off = byKey(template(template()));
        assertThat(off.keySet()).noneMatch(k -> k.startsWith("NVIDIADriver/"));
        Map<String, Object> offSpec = spec(off.get("ClusterPolicy//cluster-policy"));
        assertThat(HelmChartTest.<Map<String, Object>>at(offSpec, "driver"))
                .containsEntry("useNvidiaDriverCRD", false)
                .doesNotContainKey("nvidiaDriverCRD");

        Map<String, Map<String, Object>> on =
                byKey(template(template().set("driver.nvidiaDriverCRD.enabled", "true")));
        Map<String, Object> driver = at(spec(on.get("ClusterPolicy//cluster-policy")), "driver");
        assertThat(driver)
                .containsEntry("useNvidiaDriverCRD", true)
                .doesNotContainKey("nvidiaDriverCRD");
        Map<String, Object> nvd = spec(on.get("NVIDIADriver//default"));
        assertThat(nvd)
                .containsEntry("driverType", "gpu")
                .containsEntry("default", true)
                .containsEntry("version", at(offSpec, "driver", "version"))
                .doesNotContainKey("nodeSelector");
        // what kubectl users apply is what the chart renders
        assertThat(nvd)
                .isEqualTo(
                        spec(
                                parse(
                                                Files.readString(
                                                        DEPLOY.resolve(
                                                                "samples/nvidiadrivers/default.yaml")))
                                        .getFirst()));

        Map<String, Map<String, Object>> selected =
                byKey(
                        template(
                                template()
                                        .set("driver.nvidiaDriverCRD.enabled", "true")
                                        .set("driver.nvidiaDriverCRD.nodeSelector.pool", "a")));
        assertThat(spec(selected.get("NVIDIADriver//default")))
                .containsEntry("nodeSelector", Map.of("pool", "a"))
                .doesNotContainKey("default");

        Map<String, Map<String, Object>> noCr =
                byKey(
                        template(
                                template()
                                        .set("driver.nvidiaDriverCRD.enabled", "true")
                                        .set("driver.nvidiaDriverCRD.deployDefaultCR", "false")));
        assertThat(noCr.keySet()).noneMatch(k -> k.startsWith("NVIDIADriver/"));
        // as upstream's chart: no driver, no default NVIDIADriver
        Map<String, Map<String, Object>> noDriver =
                byKey(
                        template(
                                template()
                                        .set("driver.enabled", "false")
                                        .set("driver.nvidiaDriverCRD.enabled", "true")));
        assertThat(noDriver.keySet()).noneMatch(k -> k.startsWith("NVIDIADriver/"));
        assertThatThrownBy(() -> template(template().set("driver.nvidiaDriverCRD.enable", "true")))
                .hasMessageContaining("nvidiaDriverCRD");
    }

    @Test
    void nfdEnabledFailsSayingItIsNotBundled() {
        assertThatThrownBy(() -> template(template().set("nfd.enabled", "true")))
                .hasMessageContaining("does not bundle node-feature-discovery");
    }

    @Test
    void appVersionIsTheOperatorControllersVersion() throws Exception {
        Properties matrix = new Properties();
        try (var r = Files.newBufferedReader(REPO.resolve("images/versions.properties"))) {
            matrix.load(r);
        }
        Map<?, ?> chart = YAML.readValue(CHART.resolve("Chart.yaml").toFile(), Map.class);
        assertThat(chart.get("appVersion")).isEqualTo(matrix.getProperty("operator-controller"));
    }

    /**
     * The hooks, rendered by Helm from a copy of the chart whose hook annotation key is renamed
     * (helm-java's template returns the release manifest only, without hooks): helm upgrade applies
     * crds/ before anything else, and helm uninstall deletes the ClusterPolicies, waiting for the
     * operator to restore the nodes, before the operator itself goes.
     */
    @Test
    void upgradeAppliesTheCrdsAndUninstallDeletesThePoliciesFirst(@TempDir Path dir)
            throws Exception {
        Path chart = hooksAsManifests(dir);
        Map<String, Map<String, Object>> objects =
                byKey(
                        template(
                                new Helm(chart)
                                        .template()
                                        .withName("gpu-operator")
                                        .withNamespace(NAMESPACE)));

        Map<String, Object> crds = objects.get("ConfigMap/gpu-operator/gpu-operator-upgrade-crd");
        assertThat(annotations(crds)).containsEntry("test.helm.sh/hook", "pre-upgrade");
        Map<String, Object> data = at(crds, "data");
        assertThat(data.keySet())
                .containsExactlyInAnyOrderElementsOf(fileNames(CHART.resolve("crds")));
        for (String name : fileNames(CHART.resolve("crds"))) {
            assertThat(data.get(name))
                    .isEqualTo(Files.readString(CHART.resolve("crds").resolve(name)));
        }
        Map<String, Object> upgrade = objects.get("Job/gpu-operator/gpu-operator-upgrade-crd");
        assertThat(annotations(upgrade))
                .containsEntry("test.helm.sh/hook", "pre-upgrade")
                .containsEntry("test.helm.sh/hook-weight", "1");
        assertThat(containers(upgrade).getFirst().get("args"))
                .isEqualTo(List.of("apply", "--server-side", "--force-conflicts", "-f", "/crds/"));
        // the Job's service account, role and binding come first (weight 0)
        for (String k :
                List.of(
                        "ServiceAccount/gpu-operator/gpu-operator-upgrade-crd",
                        "ClusterRole//gpu-operator-upgrade-crd",
                        "ClusterRoleBinding//gpu-operator-upgrade-crd")) {
            assertThat(annotations(objects.get(k)))
                    .as(k)
                    .containsEntry("test.helm.sh/hook", "pre-upgrade")
                    .containsEntry("test.helm.sh/hook-weight", "0");
        }

        Map<String, Object> cleanup = objects.get("Job/gpu-operator/gpu-operator-cleanup");
        assertThat(annotations(cleanup)).containsEntry("test.helm.sh/hook", "pre-delete");
        assertThat(containers(cleanup).getFirst().get("args"))
                .isEqualTo(
                        List.of(
                                "delete",
                                "clusterpolicies.nvidia.com",
                                "--all",
                                "--ignore-not-found",
                                "--wait",
                                "--timeout=15m"));
        assertThat(
                        String.valueOf(
                                (Object)
                                        at(
                                                objects.get("ClusterRole//gpu-operator-cleanup"),
                                                "rules")))
                .doesNotContain("customresourcedefinitions");

        Map<String, Map<String, Object>> withCrdCleanup =
                byKey(
                        template(
                                new Helm(chart)
                                        .template()
                                        .withName("gpu-operator")
                                        .withNamespace(NAMESPACE)
                                        .set("operator.cleanupCRD", "true")));
        Map<String, Object> pod =
                at(
                        withCrdCleanup.get("Job/gpu-operator/gpu-operator-cleanup"),
                        "spec",
                        "template",
                        "spec");
        List<Map<String, Object>> init = (List<Map<String, Object>>) pod.get("initContainers");
        assertThat(init.getFirst().get("args")).asString().contains("clusterpolicies.nvidia.com");
        assertThat(((List<Map<String, Object>>) pod.get("containers")).getFirst().get("args"))
                .isEqualTo(
                        List.of(
                                "delete",
                                "customresourcedefinitions",
                                "clusterpolicies.nvidia.com",
                                "nvidiadrivers.nvidia.com",
                                "--ignore-not-found"));

        Map<String, Map<String, Object>> noHooks =
                byKey(
                        template(
                                new Helm(chart)
                                        .template()
                                        .withName("gpu-operator")
                                        .withNamespace(NAMESPACE)
                                        .set("operator.upgradeCRD", "false")
                                        .set("operator.cleanupClusterPolicy", "false")));
        assertThat(noHooks.keySet()).isEqualTo(byKey(template(template())).keySet());
    }

    // --- helpers

    static TemplateCommand template() {
        return new Helm(CHART).template().withName("gpu-operator").withNamespace(NAMESPACE);
    }

    static List<Map<String, Object>> template(TemplateCommand command) throws IOException {
        return parse(command.call());
    }

    /** deploy/ as kubectl kustomize builds it; also checked against kubectl where installed. */
    static List<Map<String, Object>> kustomize() throws Exception {
        Map<String, Object> k =
                YAML.readValue(DEPLOY.resolve("kustomization.yaml").toFile(), Map.class);
        assertThat(k.keySet())
                .as("deploy/kustomization.yaml: only resources are read here")
                .containsOnly("apiVersion", "kind", "resources");
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object resource : (List<?>) k.get("resources")) {
            objects.addAll(parse(Files.readString(DEPLOY.resolve((String) resource))));
        }
        Path kubectl = Path.of("/usr/bin/kubectl");
        if (Files.isExecutable(kubectl)) {
            Process p =
                    new ProcessBuilder(kubectl.toString(), "kustomize", DEPLOY.toString())
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(byKey(parse(out))).isEqualTo(byKey(objects));
        }
        return objects;
    }

    private static List<Map<String, Object>> parse(String yaml) throws IOException {
        return HelmCharts.parse(yaml);
    }

    private static String key(Map<String, Object> o) {
        return HelmCharts.key(o);
    }

    private static Map<String, Map<String, Object>> byKey(List<Map<String, Object>> objects) {
        return HelmCharts.byKey(objects);
    }

    private static <T> T at(Map<String, Object> o, String... path) {
        return HelmCharts.at(o, path);
    }

    private static Map<String, Object> spec(Map<String, Object> o) {
        return at(o, "spec");
    }

    private static Map<String, Object> annotations(Map<String, Object> o) {
        return at(o, "metadata", "annotations");
    }

    private static List<Map<String, Object>> containers(Map<String, Object> o) {
        return at(o, "spec", "template", "spec", "containers");
    }

    private static List<String> fileNames(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A copy of the chart whose hooks Helm renders as plain manifests. */
    private static Path hooksAsManifests(Path dir) throws IOException {
        Path copy = dir.resolve("gpu-operator");
        try (Stream<Path> files = Files.walk(CHART)) {
            for (Path f : files.toList()) {
                Path target = copy.resolve(CHART.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        Path helpers = copy.resolve("templates/_helpers.tpl");
        String text = Files.readString(helpers);
        assertThat(text).contains("helm.sh/hook");
        Files.writeString(helpers, text.replace("helm.sh/hook", "test.helm.sh/hook"));
        return copy;
    }
}
