package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

/**
 * Upstream's chart-rendered default ClusterPolicy (deploy/samples/upstream), with only {@code
 * simulation} added, as a user of upstream brings it: it validates, every operand runs this
 * operator's image (NVIDIA's would crash with this operator's pod specs), the status names each
 * replaced image, and the desired state has every operand's objects.
 */
class UpstreamChartDefaultPolicyTest {

    private static final Path CHART_DEFAULT =
            Path.of("..", "deploy", "samples", "upstream", "clusterpolicy-chart-default.yaml");
    private static final String REGISTRY = ClusterPolicyDefaults.REGISTRY;

    private static ClusterPolicySpec chartDefaultWithSimulation() {
        PolicyFiles.Read read = PolicyFiles.readPolicy(CHART_DEFAULT);
        assertThat(read.errors()).isEmpty();
        ClusterPolicySpec spec = read.spec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("h100-80gb-x8");
        sim.setNodeLabel("gpuoperator.org/simulated-gpu");
        spec.setSimulation(sim);
        return spec;
    }

    private static RenderedPolicy rendered() {
        return RenderedPolicy.of(
                chartDefaultWithSimulation(), PolicyFiles.defaultNodes(), "gpu-operator", Map.of());
    }

    private static Container container(RenderedPolicy r, Operand o) {
        return r.desired().enabled().get(o).stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow()
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
    }

    @Test
    void itValidatesAndEveryOperandIsRenderedWithThisOperatorsImage() {
        RenderedPolicy r = rendered();

        assertThat(r.errors()).isEmpty();
        for (Operand o : Operand.values()) {
            assertThat(r.settings().enabled(o)).as(o.id()).isTrue();
            String image = container(r, o).getImage();
            assertThat(image).as(o.id()).startsWith(REGISTRY + "/" + o.module() + ":");
        }
        // the chart's driver version is kept: the driver agent's image of that version installs it
        assertThat(container(r, Operand.DRIVER).getImage())
                .isEqualTo(REGISTRY + "/driver-agent:595.91.07");
        assertThat(container(r, Operand.DRIVER).getEnv())
                .extracting(EnvVar::getName, EnvVar::getValue)
                .contains(org.assertj.core.groups.Tuple.tuple("DRIVER_VERSION", "595.91.07"));
        assertThat(container(r, Operand.DEVICE_PLUGIN).getImage())
                .isEqualTo(ClusterPolicyDefaults.imageReference("device-plugin"));
        assertThat(r.yaml()).doesNotContain("nvcr.io");
    }

    @Test
    void theWarningsNameEachReplacedImageAndItsReplacement() {
        List<PolicyWarning> warnings = rendered().warnings();
        Map<String, String> expected =
                Map.of(
                        "spec.driver.image",
                        "nvcr.io/nvidia/driver:595.91.07 is replaced by this operator's image of"
                                + " the same operand, "
                                + REGISTRY
                                + "/driver-agent:595.91.07",
                        "spec.toolkit.image",
                        "nvcr.io/nvidia/k8s/container-toolkit:v1.20.0",
                        "spec.devicePlugin.image",
                        "nvcr.io/nvidia/k8s-device-plugin:v0.20.0",
                        "spec.gfd.image",
                        "nvcr.io/nvidia/k8s-device-plugin:v0.20.0",
                        "spec.dcgmExporter.image",
                        "nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless",
                        "spec.validator.image",
                        "nvcr.io/nvidia/gpu-operator:v26.7.0");
        expected.forEach(
                (path, text) ->
                        assertThat(warnings)
                                .as(path)
                                .anySatisfy(
                                        w -> {
                                            assertThat(w.getPath()).isEqualTo(path);
                                            assertThat(w.getMessage())
                                                    .contains(text)
                                                    .contains(REGISTRY + "/");
                                        }));
    }

    @Test
    void theDesiredStateIsComplete() {
        RenderedPolicy r = rendered();

        assertThat(r.desired().errors()).isEmpty();
        assertThat(r.desired().enabled()).containsOnlyKeys(Operand.values());
        assertThat(r.desired().toApply())
                .filteredOn(DaemonSet.class::isInstance)
                .extracting(d -> d.getMetadata().getName())
                .containsExactlyInAnyOrder(
                        java.util.stream.Stream.concat(
                                        java.util.Arrays.stream(Operand.values())
                                                .map(Operand::daemonSetName),
                                        // upstream's state-mps-control-daemon, with the plugin
                                        java.util.stream.Stream.of(
                                                "nvidia-device-plugin-mps-control-daemon"))
                                .toArray(String[]::new));
        assertThat(r.desired().toApply())
                .filteredOn(RuntimeClass.class::isInstance)
                .extracting(rc -> rc.getMetadata().getName())
                .contains("nvidia");
        // the simulated cluster: every GPU user sees simulated GPUs
        assertThat(container(r, Operand.DEVICE_PLUGIN).getEnv())
                .extracting(EnvVar::getName, EnvVar::getValue)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(
                                "GPU_SOURCE", "simulated:h100-80gb-x8"));
        // the chart's autoUpgrade: true is the upgrade policy the controller runs
        assertThat(r.upgradePolicy().autoUpgrade()).isTrue();
    }
}
