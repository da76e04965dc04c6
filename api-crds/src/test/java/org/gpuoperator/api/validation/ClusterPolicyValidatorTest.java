package org.gpuoperator.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.EnvVar;
import org.gpuoperator.api.crd.ModuleFiles;
import org.gpuoperator.api.v1.CdiSpec;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.DevicePluginConfig;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.RollingUpdateSpec;
import org.gpuoperator.api.v1.ServiceMonitorConfig;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.ToolkitSpec;
import org.gpuoperator.api.v1.UpdateStrategyType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterPolicyValidatorTest {
    static List<Path> samples() {
        return ModuleFiles.yamlFiles(ModuleFiles.SAMPLES);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void samplesHaveNoProblems(Path sample) {
        assertThat(ClusterPolicyReader.read(ModuleFiles.read(sample), sample.toString()).problems())
                .isEmpty();
    }

    @Test
    void upstreamPolicyIsValidWithWarningsForWhatIsIgnored() {
        ClusterPolicyReader.Result result =
                ClusterPolicyReader.read(
                        ModuleFiles.read(ModuleFiles.TEST_POLICIES.resolve("upstream-full.yaml")),
                        "upstream-full.yaml");

        assertThat(result.hasErrors()).as(result.problems().toString()).isFalse();
        assertThat(result.problems()).allMatch(p -> p.severity() == Severity.WARNING);
        assertThat(result.problems())
                .extracting(ValidationProblem::path)
                .containsExactlyInAnyOrder(
                        // unknown fields, kept but ignored
                        "spec.operator.logging",
                        "spec.driver.nvidiaDriverCRD",
                        "spec.gpuDirectRdmaFuture",
                        // deprecated
                        "spec.operator.defaultRuntime",
                        "spec.operator.initContainer",
                        "spec.cdi.default");
    }

    @Test
    void specWithoutRequiredSectionsListsEachOne() {
        List<ValidationProblem> problems = ClusterPolicyValidator.validate(new ClusterPolicySpec());

        assertThat(problems)
                .filteredOn(ValidationProblem::isError)
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "ERROR spec.operator: is required",
                        "ERROR spec.daemonsets: is required",
                        "ERROR spec.driver: is required",
                        "ERROR spec.toolkit: is required",
                        "ERROR spec.devicePlugin: is required",
                        "ERROR spec.dcgmExporter: is required",
                        "ERROR spec.dcgm: is required",
                        "ERROR spec.nodeStatusExporter: is required",
                        "ERROR spec.gfd: is required");
    }

    @Test
    void nriPluginNeedsCdiAndToolkitAndBothProblemsComeAtOnce() {
        ClusterPolicySpec spec = defaultSpec();
        CdiSpec cdi = spec.getCdi();
        cdi.setNriPluginEnabled(true);
        cdi.setEnabled(false);
        ToolkitSpec toolkit = spec.getToolkit();
        toolkit.setEnabled(false);

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "ERROR spec.cdi.nriPluginEnabled: requires cdi.enabled=true",
                        "ERROR spec.cdi.nriPluginEnabled: requires toolkit.enabled=true");
    }

    @Test
    void nriPluginWithDefaultCdiAndToolkitIsFine() {
        ClusterPolicySpec spec = defaultSpec();
        spec.setCdi(new CdiSpec());
        spec.getCdi().setNriPluginEnabled(true);

        assertThat(ClusterPolicyValidator.validate(spec)).isEmpty();
    }

    @Test
    void imageAloneMustBeAFullReference() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getToolkit().setImage("container-toolkit");
        spec.getDevicePlugin().setImage("nvcr.io/nvidia/k8s-device-plugin:v0.20.0");

        assertThat(ClusterPolicyValidator.validate(spec))
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.path()).isEqualTo("spec.toolkit.image");
                            assertThat(p.message())
                                    .contains("\"container-toolkit\"", "full image reference");
                            assertThat(p.isError()).isTrue();
                        });
    }

    @Test
    void digestVersionMustBeComplete() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getDriver().setRepository("nvcr.io/nvidia");
        spec.getDriver().setImage("driver");
        spec.getDriver().setVersion("sha256:1234");

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.driver.version");
    }

    @Test
    void maxUnavailableMustBeACountOrAPercentageUpTo100() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getDaemonsets().getRollingUpdate().setMaxUnavailable("150%");
        DriverUpgradePolicySpec upgrade = spec.getDriver().getUpgradePolicy();
        upgrade.setMaxUnavailable(new IntOrString("a few"));

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "ERROR spec.daemonsets.rollingUpdate.maxUnavailable: \"150%\" is more than 100%",
                        "ERROR spec.driver.upgradePolicy.maxUnavailable: \"a few\" must be a count such as 1 or a percentage such as 25%");
    }

    @Test
    void negativeUpgradeCountsAreErrors() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getDriver().getUpgradePolicy().setMaxParallelUpgrades(-1);
        spec.getDriver().getUpgradePolicy().setMaxUnavailable(new IntOrString(-2));

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "ERROR spec.driver.upgradePolicy.maxParallelUpgrades: must be at least 0, was -1",
                        "ERROR spec.driver.upgradePolicy.maxUnavailable: must be at least 0, was -2");
    }

    @Test
    void rollingUpdateWithNothingUnavailableCannotProgress() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getDaemonsets().getRollingUpdate().setMaxUnavailable("0");

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.daemonsets.rollingUpdate.maxUnavailable");
    }

    @Test
    void rollingUpdateSettingsWithOnDeleteAreAWarning() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getDaemonsets().setUpdateStrategy(UpdateStrategyType.ON_DELETE);
        spec.getDaemonsets().setRollingUpdate(new RollingUpdateSpec());

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "WARNING spec.daemonsets.rollingUpdate: ignored because updateStrategy is OnDelete");
    }

    @Test
    void devicePluginDefaultConfigNeedsTheConfigMapName() {
        ClusterPolicySpec spec = defaultSpec();
        spec.setDevicePlugin(new DevicePluginSpec());
        spec.getDevicePlugin().setConfig(new DevicePluginConfig());
        spec.getDevicePlugin().getConfig().setDefaultConfig("time-slicing");

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.devicePlugin.config.default");
    }

    @Test
    void scrapeTimeoutMustNotExceedTheInterval() {
        ClusterPolicySpec spec = defaultSpec();
        spec.setDcgmExporter(new DcgmExporterSpec());
        ServiceMonitorConfig monitor = new ServiceMonitorConfig();
        monitor.setInterval("15s");
        monitor.setScrapeTimeout("1m");
        spec.getDcgmExporter().setServiceMonitor(monitor);

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.dcgmExporter.serviceMonitor.scrapeTimeout");
    }

    @Test
    void prometheusDurationsAreRead() {
        assertThat(ClusterPolicyValidator.duration("1m30s")).hasSeconds(90);
        assertThat(ClusterPolicyValidator.duration("250ms")).hasMillis(250);
        assertThat(ClusterPolicyValidator.duration("1.5h")).hasMinutes(90);
        assertThat(ClusterPolicyValidator.duration("15")).isNull();
        assertThat(ClusterPolicyValidator.duration("x15s")).isNull();
    }

    @Test
    void emptyAndRepeatedEnvironmentNames() {
        ClusterPolicySpec spec = defaultSpec();
        spec.getToolkit()
                .setEnv(List.of(new EnvVar("A", "1"), new EnvVar("", "2"), new EnvVar("A", "3")));

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "ERROR spec.toolkit.env[1].name: must not be empty",
                        "WARNING spec.toolkit.env[2].name: \"A\" is set more than once; the last value wins");
    }

    @Test
    void simulationNodeLabelMustBeALabelKey() {
        ClusterPolicySpec spec = defaultSpec();
        SimulationSpec simulation = new SimulationSpec();
        simulation.setEnabled(true);
        simulation.setNodeLabel("not a label!");
        spec.setSimulation(simulation);

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.simulation.nodeLabel");
    }

    @Test
    void simulationSettingsWhileDisabledAreAWarning() {
        ClusterPolicySpec spec = defaultSpec();
        SimulationSpec simulation = new SimulationSpec();
        simulation.setProfile("t4-x1");
        spec.setSimulation(simulation);

        assertThat(ClusterPolicyValidator.validate(spec))
                .extracting(ValidationProblem::toString)
                .containsExactly(
                        "WARNING spec.simulation: profile and nodeLabel are ignored while simulation.enabled is false");
    }

    @Test
    void simulationWithTheDriverEnabledIsAllowed() {
        ClusterPolicySpec spec = defaultSpec();
        SimulationSpec simulation = new SimulationSpec();
        simulation.setEnabled(true);
        spec.setSimulation(simulation);
        spec.getDriver().setEnabled(true);

        assertThat(ClusterPolicyValidator.validate(spec)).isEmpty();
    }

    @Test
    void policyWithoutSpecIsAnError() {
        assertThat(ClusterPolicyValidator.validate(new ClusterPolicy()))
                .extracting(ValidationProblem::toString)
                .containsExactly("ERROR spec: is required");
    }

    @Test
    void warningsConvertToStatusEntries() {
        ValidationProblem warning = ValidationProblem.warning("spec.x", "unknown field");

        assertThat(warning.toPolicyWarning().getPath()).isEqualTo("spec.x");
        assertThat(warning.toPolicyWarning().getMessage()).isEqualTo("unknown field");
    }

    /** The default sample, read fresh for each test. */
    private static ClusterPolicySpec defaultSpec() {
        Path sample = ModuleFiles.SAMPLES.resolve("clusterpolicy-default.yaml");
        return ClusterPolicyReader.read(ModuleFiles.read(sample), sample.toString())
                .policy()
                .orElseThrow()
                .getSpec();
    }
}
