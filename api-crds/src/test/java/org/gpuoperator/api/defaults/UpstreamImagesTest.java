package org.gpuoperator.api.defaults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.MigManagerSpec;
import org.gpuoperator.api.v1.ToolkitSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UpstreamImagesTest {

    private static final String REGISTRY = ClusterPolicyDefaults.REGISTRY;

    private static Optional<String> mapped(
            String ours, String repository, String image, String version) {
        return UpstreamImages.map("spec.x.image", ours, repository, image, version)
                .map(m -> m.replacement().replacement());
    }

    /** The images upstream's chart (v26.7.0) renders, and one of each operand's older names. */
    @ParameterizedTest
    @CsvSource({
        "toolkit-agent,     nvcr.io/nvidia/k8s,          container-toolkit,      v1.20.0",
        "device-plugin,     nvcr.io/nvidia,              k8s-device-plugin,      v0.20.0",
        "feature-discovery, nvcr.io/nvidia,              k8s-device-plugin,      v0.20.0",
        "feature-discovery, nvcr.io/nvidia,              gpu-feature-discovery,  v0.8.2",
        "dcgm-exporter,     nvcr.io/nvidia/k8s,          dcgm-exporter,          4.6.0-4.8.3-distroless",
        "validator,         nvcr.io/nvidia,              gpu-operator,           v26.7.0",
        "validator,         nvcr.io/nvidia/cloud-native, gpu-operator-validator, v24.9.0",
        "mig-manager,       nvcr.io/nvidia/cloud-native, k8s-mig-manager,        v0.15.0",
        "mig-manager,       nvcr.io/nvidia/cloud-native, k8s-mig-manager,        v0.13.0-ubuntu20.04",
        "device-plugin,     docker.io/nvidia,            k8s-device-plugin,      v0.14.1",
        "device-plugin,     nvidia,                      k8s-device-plugin,      v0.14.1",
    })
    void nvidiasImageOfAnOperandBecomesOursAtOurVersion(
            String ours, String repository, String image, String version) {
        var m = UpstreamImages.map("spec.x.image", ours, repository, image, version).orElseThrow();
        String expected = REGISTRY + "/" + ours + ":" + ClusterPolicyDefaults.imageVersion(ours);
        assertThat(m.replacement().replacement()).isEqualTo(expected);
        assertThat(m.replacement().given()).isEqualTo(repository + "/" + image + ":" + version);
        assertThat(m.repository()).isEqualTo(REGISTRY);
        assertThat(m.image()).isEqualTo(ours);
        assertThat(m.replacement().message())
                .contains(repository + "/" + image + ":" + version)
                .contains(expected);
    }

    @Test
    void theDriverKeepsItsVersion() {
        assertThat(mapped("driver-agent", "nvcr.io/nvidia", "driver", "595.91.07"))
                .contains(REGISTRY + "/driver-agent:595.91.07");
        // a digest of NVIDIA's image names nothing of ours: our released agent
        assertThat(mapped("driver-agent", "nvcr.io/nvidia", "driver", "sha256:abc"))
                .contains(
                        REGISTRY
                                + "/driver-agent:"
                                + ClusterPolicyDefaults.imageVersion("driver-agent"));
    }

    @Test
    void aFullReferenceInImageAloneIsMappedToo() {
        assertThat(mapped("device-plugin", null, "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", null))
                .contains(
                        REGISTRY
                                + "/device-plugin:"
                                + ClusterPolicyDefaults.imageVersion("device-plugin"));
        assertThat(mapped("driver-agent", null, "nvcr.io/nvidia/driver:580.95.05", null))
                .contains(REGISTRY + "/driver-agent:580.95.05");
        assertThat(
                        mapped(
                                "toolkit-agent",
                                null,
                                "nvcr.io/nvidia/k8s/container-toolkit@sha256:1",
                                null))
                .isPresent();
    }

    @Test
    void anImageThatIsNotNvidiasIsUsedAsGiven() {
        // a private mirror of NVIDIA's image
        assertThat(mapped("driver-agent", "registry.example.com/nvidia", "driver", "550.54.15"))
                .isEmpty();
        // this operator's own
        assertThat(mapped("device-plugin", REGISTRY, "device-plugin", "0.1.0")).isEmpty();
        // NVIDIA's image of another operand
        assertThat(mapped("device-plugin", "nvcr.io/nvidia/k8s", "dcgm-exporter", "4.6.0"))
                .isEmpty();
        assertThat(mapped("mig-manager", "nvcr.io/nvidia/k8s", "k8s-device-plugin", "v0.20.0"))
                .isEmpty();
        assertThat(
                        mapped(
                                "mig-manager",
                                "registry.example.com/nvidia",
                                "k8s-mig-manager",
                                "v0.15.0"))
                .isEmpty();
        // a look-alike registry
        assertThat(mapped("driver-agent", "nvcr.io/nvidia-fork", "driver", "550.54.15")).isEmpty();
        assertThat(mapped("driver-agent", null, null, null)).isEmpty();
    }

    @Test
    void effectiveRunsOursAndOfListsEachReplacementWithoutChangingTheSpec() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        DriverSpec driver = new DriverSpec();
        driver.setRepository("nvcr.io/nvidia");
        driver.setImage("driver");
        driver.setVersion("580.95.05");
        spec.setDriver(driver);
        ToolkitSpec toolkit = new ToolkitSpec();
        toolkit.setRepository("nvcr.io/nvidia/k8s");
        toolkit.setImage("container-toolkit");
        toolkit.setVersion("v1.20.0");
        spec.setToolkit(toolkit);
        DevicePluginSpec plugin = new DevicePluginSpec();
        plugin.setRepository("registry.example.com/mirror");
        plugin.setImage("k8s-device-plugin");
        plugin.setVersion("v0.20.0");
        spec.setDevicePlugin(plugin);
        MigManagerSpec migManager = new MigManagerSpec();
        migManager.setRepository("nvcr.io/nvidia/cloud-native");
        migManager.setImage("k8s-mig-manager");
        migManager.setVersion("v0.15.0");
        spec.setMigManager(migManager);

        assertThat(UpstreamImages.of(spec))
                .extracting(UpstreamImages.Replacement::path)
                .containsExactly(
                        "spec.driver.image", "spec.toolkit.image", "spec.migManager.image");
        assertThat(spec.getDriver().getRepository()).isEqualTo("nvcr.io/nvidia");

        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(spec);
        assertThat(effective.getDriver().imagePath())
                .contains(REGISTRY + "/driver-agent:580.95.05");
        assertThat(effective.getToolkit().imagePath())
                .contains(
                        REGISTRY
                                + "/toolkit-agent:"
                                + ClusterPolicyDefaults.imageVersion("toolkit-agent"));
        assertThat(effective.getDevicePlugin().imagePath())
                .contains("registry.example.com/mirror/k8s-device-plugin:v0.20.0");
        assertThat(effective.getMigManager().imagePath())
                .contains(
                        REGISTRY
                                + "/mig-manager:"
                                + ClusterPolicyDefaults.imageVersion("mig-manager"));
        assertThat(spec.getToolkit().getImage()).isEqualTo("container-toolkit");
        assertThat(spec.getMigManager().getImage()).isEqualTo("k8s-mig-manager");
    }
}
