package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.helm.HelmCharts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What bin/simulate installs is the chart as helm template renders it for the same values. */
class ChartInstallTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final String POLICY = "ClusterPolicy//cluster-policy";

    @Test
    void setAndValuesFilesRenderWhatHelmTemplateRendersForTheSameValues(@TempDir Path dir)
            throws Exception {
        Path values = dir.resolve("values.yaml");
        Files.writeString(values, "devicePlugin:\n  enabled: true\ngfd:\n  enabled: false\n");
        String rendered =
                ChartInstall.of(REPO, List.of(values), List.of("driver.enabled=false"))
                        .render("t4-x1", dir);

        // helm template gpu-operator deploy/helm/gpu-operator -n gpu-operator -f values.yaml
        //   --set driver.enabled=false, and simulate's own values given as --set
        String helm =
                new Helm(REPO.resolve("deploy/helm/gpu-operator"))
                        .template()
                        .withName("gpu-operator")
                        .withNamespace("gpu-operator")
                        .withValuesFile(values)
                        .set("driver.enabled", "false")
                        .set("simulation.enabled", "true")
                        .set("simulation.profile", "t4-x1")
                        .set("simulation.nodeLabel", "gpuoperator.org/simulated-gpu")
                        .set("driver.version", "null")
                        .call();
        Map<String, Map<String, Object>> objects = HelmCharts.byKey(HelmCharts.parse(rendered));
        assertThat(objects).isEqualTo(HelmCharts.byKey(HelmCharts.parse(helm)));
        Map<String, Object> spec = HelmCharts.at(objects.get(POLICY), "spec");
        assertThat((Object) HelmCharts.at(spec, "driver", "enabled")).isEqualTo(false);
        assertThat((Object) HelmCharts.at(spec, "gfd", "enabled")).isEqualTo(false);
        assertThat((Object) HelmCharts.at(spec, "simulation", "profile")).isEqualTo("t4-x1");
    }

    /**
     * Without values, simulate installs deploy/'s objects and clusterpolicy-simulated.yaml (the
     * policy it applied before the chart, with the run's profile).
     */
    @Test
    void withoutValuesItIsDeploysObjectsAndTheSimulatedSamplePolicy(@TempDir Path dir)
            throws Exception {
        Map<String, Map<String, Object>> objects =
                HelmCharts.byKey(
                        HelmCharts.parse(
                                ChartInstall.of(REPO, List.of(), List.of())
                                        .render("h100-80gb-x8", dir)));
        Map<String, Object> sample =
                HelmCharts.parse(
                                Files.readString(
                                        REPO.resolve(
                                                "deploy/samples/clusterpolicy-simulated.yaml")))
                        .getFirst();
        assertThat(objects.get(POLICY)).isEqualTo(sample);
        Map<String, Map<String, Object>> defaults =
                HelmCharts.byKey(
                        HelmCharts.parse(
                                new Helm(REPO.resolve("deploy/helm/gpu-operator"))
                                        .template()
                                        .withName("gpu-operator")
                                        .withNamespace("gpu-operator")
                                        .call()));
        objects.remove(POLICY);
        defaults.remove(POLICY);
        assertThat(objects).isEqualTo(defaults);
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aMistypedValueIsRefusedWithHelmsMessage(@TempDir Path dir) {
        assertThatThrownBy(
                        () ->
                                ChartInstall.of(REPO, List.of(), List.of("driver.enabeld=false"))
                                        .render("t4-x1", dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at '/driver': additional properties 'enabeld' not allowed");
        assertThatThrownBy(() -> ChartInstall.of(REPO, List.of(), List.of("driver.enabled")))
                .hasMessageContaining("--set driver.enabled: expected KEY=VALUE");
        assertThatThrownBy(
                        () -> ChartInstall.of(REPO, List.of(dir.resolve("none.yaml")), List.of()))
                .hasMessageContaining("none.yaml: no such readable file");
    }

    @Test
    void simulateTakesSetAndValuesRepeated() {
        SimulateCommand cmd = new SimulateCommand();
        new CommandLine(cmd)
                .parseArgs(
                        "--set",
                        "driver.enabled=false",
                        "--set",
                        "gfd.enabled=false",
                        "-f",
                        "a.yaml",
                        "--values",
                        "b.yaml");
        assertThat(cmd.sets).containsExactly("driver.enabled=false", "gfd.enabled=false");
        assertThat(cmd.valuesFiles).containsExactly(Path.of("a.yaml"), Path.of("b.yaml"));
    }
}
