package org.gpuoperator.api.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.gpuoperator.api.common.ImagePullPolicy;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.crd.ModuleFiles;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.MigManagerConfig;
import org.gpuoperator.api.v1.MigManagerSpec;
import org.gpuoperator.api.v1.MigSpec;
import org.gpuoperator.api.v1.MigStrategy;
import org.gpuoperator.api.v1.UpdateStrategyType;
import org.junit.jupiter.api.Test;

class ClusterPolicyDefaultsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void emptySpecGetsUpstreamDefaults() {
        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(new ClusterPolicySpec());

        assertThat(effective.getDriver().isEnabled()).isTrue();
        assertThat(effective.getToolkit().isEnabled()).isTrue();
        assertThat(effective.getDevicePlugin().isEnabled()).isTrue();
        assertThat(effective.getDcgmExporter().isEnabled()).isTrue();
        assertThat(effective.getGfd().isEnabled()).isTrue();
        assertThat(effective.getMigManager().isEnabled()).isTrue();
        assertThat(effective.getNodeStatusExporter().isEnabled()).isFalse();
        assertThat(effective.getGds().isEnabled()).isFalse();
        assertThat(effective.getCdi().isEnabled()).isTrue();
        assertThat(effective.getCdi().getNriPluginEnabled()).isFalse();
        assertThat(effective.getMig().getStrategy()).isEqualTo(MigStrategy.SINGLE);
        assertThat(effective.getDaemonsets().getUpdateStrategy())
                .isEqualTo(UpdateStrategyType.ROLLING_UPDATE);
        assertThat(effective.getDaemonsets().getRollingUpdate().getMaxUnavailable()).isEqualTo("1");
        assertThat(effective.getOperator().getRuntimeClass()).isEqualTo("nvidia");
        assertThat(effective.getHostPaths().getRootFS()).isEqualTo("/");
        assertThat(effective.getHostPaths().getDriverInstallDir()).isEqualTo("/run/nvidia/driver");
        assertThat(effective.getHostPaths().getKubeletRootDir()).isEqualTo("/var/lib/kubelet");
        assertThat(effective.getToolkit().getInstallDir()).isEqualTo("/usr/local/nvidia");
        assertThat(effective.getDriver().getKernelModuleType()).isEqualTo(KernelModuleType.AUTO);
        assertThat(effective.getDriver().getUpgradePolicy().getMaxUnavailable().getStrVal())
                .isEqualTo("25%");
        assertThat(effective.getDriver().getUpgradePolicy().getMaxParallelUpgrades()).isEqualTo(1);
        assertThat(effective.getSimulation().isEnabled()).isFalse();
        assertThat(effective.getSimulation().getProfile()).isEqualTo("h100-80gb-x8");
        assertThat(effective.getSimulation().getNodeLabel())
                .isEqualTo("gpuoperator.org/simulated-gpu");
    }

    @Test
    void nullSpecIsTheSameAsAnEmptyOne() {
        JsonNode fromNull = JSON.valueToTree(ClusterPolicyDefaults.effective(null));
        JsonNode fromEmpty =
                JSON.valueToTree(ClusterPolicyDefaults.effective(new ClusterPolicySpec()));

        assertThat(fromNull).isEqualTo(fromEmpty);
    }

    @Test
    void operandsGetThisProjectsImages() {
        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(new ClusterPolicySpec());

        assertThat(effective.getDriver().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/driver-agent:0.1.0");
        assertThat(effective.getToolkit().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/toolkit-agent:0.1.0");
        assertThat(effective.getDevicePlugin().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/device-plugin:0.1.0");
        assertThat(effective.getGfd().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/feature-discovery:0.1.0");
        assertThat(effective.getDcgmExporter().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/dcgm-exporter:0.1.0");
        assertThat(effective.getValidator().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/validator:0.1.0");
        assertThat(effective.getMigManager().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/mig-manager:0.1.0");
        assertThat(effective.getDriver().getImagePullPolicy())
                .isEqualTo(ImagePullPolicy.IF_NOT_PRESENT);
        assertThat(effective.getMigManager().getImagePullPolicy())
                .isEqualTo(ImagePullPolicy.IF_NOT_PRESENT);
    }

    @Test
    void theMigManagerIsAnOperandWithOurImageAndKeepsWhatTheUserWrote() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        MigManagerSpec migManager = new MigManagerSpec();
        MigManagerConfig config = new MigManagerConfig();
        config.setName("custom-mig-parted-config");
        config.setDefaultConfig("all-disabled");
        migManager.setConfig(config);
        migManager.setVersion("0.2.0");
        migManager.setImagePullPolicy(ImagePullPolicy.ALWAYS);
        spec.setMigManager(migManager);

        MigManagerSpec effective = ClusterPolicyDefaults.effective(spec).getMigManager();

        assertThat(effective.isEnabled()).isTrue();
        assertThat(effective.getEnabled()).isTrue();
        assertThat(effective.getRepository()).isEqualTo(ClusterPolicyDefaults.REGISTRY);
        assertThat(effective.getImage()).isEqualTo(ClusterPolicyDefaults.MIG_MANAGER_IMAGE);
        assertThat(effective.imagePath())
                .hasValue(ClusterPolicyDefaults.REGISTRY + "/mig-manager:0.2.0");
        assertThat(effective.getImagePullPolicy()).isEqualTo(ImagePullPolicy.ALWAYS);
        assertThat(effective.getConfig().getName()).isEqualTo("custom-mig-parted-config");
        assertThat(effective.getConfig().getDefaultConfig()).isEqualTo("all-disabled");

        MigManagerSpec off = new MigManagerSpec();
        off.setEnabled(false);
        spec.setMigManager(off);
        assertThat(ClusterPolicyDefaults.effective(spec).getMigManager().isEnabled()).isFalse();
    }

    @Test
    void defaultImagesAreTheImageVersionMatrixAsTheBuildBundledIt() throws IOException {
        // the build copies images/versions.properties into the jar; the defaults must be exactly
        // the file's values
        Path matrix = Path.of("..", "images", "versions.properties");
        Properties versions = new Properties();
        try (InputStream in = Files.newInputStream(matrix)) {
            versions.load(in);
        }
        assertThat(ClusterPolicyDefaults.REGISTRY).isEqualTo(versions.getProperty("registry"));
        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(new ClusterPolicySpec());
        for (String image :
                new String[] {
                    ClusterPolicyDefaults.DRIVER_IMAGE,
                    ClusterPolicyDefaults.TOOLKIT_IMAGE,
                    ClusterPolicyDefaults.DEVICE_PLUGIN_IMAGE,
                    ClusterPolicyDefaults.GFD_IMAGE,
                    ClusterPolicyDefaults.DCGM_EXPORTER_IMAGE,
                    ClusterPolicyDefaults.VALIDATOR_IMAGE,
                    ClusterPolicyDefaults.MIG_MANAGER_IMAGE
                }) {
            assertThat(ClusterPolicyDefaults.imageVersion(image))
                    .as(image)
                    .isEqualTo(versions.getProperty(image));
            assertThat(ClusterPolicyDefaults.imageReference(image))
                    .as(image)
                    .isEqualTo(
                            versions.getProperty("registry")
                                    + "/"
                                    + image
                                    + ":"
                                    + versions.getProperty(image));
        }
        assertThat(effective.getDriver().getVersion())
                .isEqualTo(versions.getProperty("driver-agent"));
        assertThat(effective.getDcgmExporter().getVersion())
                .isEqualTo(versions.getProperty("dcgm-exporter"));
    }

    @Test
    void userValuesWin() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        DriverSpec driver = new DriverSpec();
        driver.setEnabled(false);
        driver.setVersion("9.9.9");
        spec.setDriver(driver);
        MigSpec mig = new MigSpec();
        mig.setStrategy(MigStrategy.MIXED);
        spec.setMig(mig);

        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(spec);

        assertThat(effective.getDriver().isEnabled()).isFalse();
        assertThat(effective.getDriver().imagePath())
                .hasValue("ghcr.io/gpu-operator-java/driver-agent:9.9.9");
        assertThat(effective.getMig().getStrategy()).isEqualTo(MigStrategy.MIXED);
    }

    @Test
    void fullImagePathAloneIsUsedAsWritten() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        DriverSpec driver = new DriverSpec();
        driver.setImage("registry.example.com/gpu/driver:1.2.3");
        spec.setDriver(driver);

        DriverSpec effective = ClusterPolicyDefaults.effective(spec).getDriver();

        assertThat(effective.getRepository()).isNull();
        assertThat(effective.getVersion()).isNull();
        assertThat(effective.imagePath()).hasValue("registry.example.com/gpu/driver:1.2.3");
    }

    @Test
    void inputIsNotChangedAndUnknownFieldsAreCarriedOver() {
        ClusterPolicy policy =
                new KubernetesSerialization()
                        .unmarshal(
                                ModuleFiles.read(
                                        ModuleFiles.TEST_POLICIES.resolve("upstream-full.yaml")),
                                ClusterPolicy.class);
        JsonNode before = JSON.valueToTree(policy.getSpec());

        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(policy.getSpec());

        JsonNode after = JSON.valueToTree(policy.getSpec());
        assertThat(after).isEqualTo(before);
        assertThat(effective).isNotSameAs(policy.getSpec());
        assertThat(effective.getDriver()).isNotSameAs(policy.getSpec().getDriver());
        assertThat(effective.getOperator().getAdditionalProperties()).containsKey("logging");
        assertThat(effective.getAdditionalProperties()).containsKey("gpuDirectRdmaFuture");
        // written values stay, e.g. the driver version and the rolling update percentage; NVIDIA's
        // driver image becomes the driver agent's of that version (UpstreamImages)
        assertThat(effective.getDriver().imagePath())
                .hasValue(ClusterPolicyDefaults.REGISTRY + "/driver-agent:595.91.07");
        assertThat(effective.getDaemonsets().getRollingUpdate().getMaxUnavailable())
                .isEqualTo("10%");
        // NVIDIA's k8s-mig-manager becomes this project's mig-manager; its env stays
        assertThat(effective.getMigManager().imagePath())
                .hasValue(ClusterPolicyDefaults.imageReference("mig-manager"));
        assertThat(effective.getMigManager().getEnv())
                .extracting(e -> e.getName())
                .contains("WITH_REBOOT");
    }

    @Test
    void onDeleteStrategyGetsNoRollingUpdateSettings() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        spec.setDaemonsets(new org.gpuoperator.api.v1.DaemonsetsSpec());
        spec.getDaemonsets().setUpdateStrategy(UpdateStrategyType.ON_DELETE);

        assertThat(ClusterPolicyDefaults.effective(spec).getDaemonsets().getRollingUpdate())
                .isNull();
    }

    @Test
    void effectiveIsIdempotent() {
        ClusterPolicySpec once = ClusterPolicyDefaults.effective(new ClusterPolicySpec());
        ClusterPolicySpec twice = ClusterPolicyDefaults.effective(once);

        JsonNode onceTree = JSON.valueToTree(once);
        JsonNode twiceTree = JSON.valueToTree(twice);
        assertThat(twiceTree).isEqualTo(onceTree);
    }
}
