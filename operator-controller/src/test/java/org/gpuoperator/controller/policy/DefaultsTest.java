package org.gpuoperator.controller.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.controller.operand.ImagePaths;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.junit.jupiter.api.Test;

/** The controller keeps no defaults of its own: its fallbacks are ClusterPolicyDefaults' values. */
class DefaultsTest {

    @Test
    void fallbacksAreClusterPolicyDefaults() {
        DaemonSetSettings d = DaemonSetSettings.defaults();
        assertThat(d.tolerations()).isEqualTo(ClusterPolicyDefaults.tolerations());
        assertThat(d.priorityClassName()).isEqualTo(ClusterPolicyDefaults.PRIORITY_CLASS);
        assertThat(d.updateStrategy()).isEqualTo(ClusterPolicyDefaults.UPDATE_STRATEGY);
        assertThat(d.maxUnavailable())
                .isEqualTo(ClusterPolicyDefaults.ROLLING_UPDATE_MAX_UNAVAILABLE);
        PolicySettings p = PolicySettings.builder(d, Map.of()).build();
        assertThat(p.runtimeClass()).isEqualTo(ClusterPolicyDefaults.RUNTIME_CLASS);
        assertThat(p.kubeletRootDir()).isEqualTo(ClusterPolicyDefaults.KUBELET_ROOT_DIR);
        assertThat(p.toolkitInstallDir()).isEqualTo(ClusterPolicyDefaults.TOOLKIT_INSTALL_DIR);
        assertThat(p.simulation().nodeLabel())
                .isEqualTo(ClusterPolicyDefaults.SIMULATION_NODE_LABEL);
        assertThat(p.simulation().profile()).isEqualTo(ClusterPolicyDefaults.SIMULATION_PROFILE);
    }

    @Test
    void defaultImagesAreTheVersionMatrixValues() throws IOException {
        Properties versions = new Properties();
        try (InputStream in =
                Files.newInputStream(Path.of("..", "images", "versions.properties"))) {
            versions.load(in);
        }
        Map<String, String> images = ControllerRuntime.withDefaultImages(Map.of());
        for (Operand o : Operand.values()) {
            assertThat(images.get(ImagePaths.envName(o)))
                    .as(o.id())
                    .isEqualTo(
                            versions.getProperty("registry")
                                    + "/"
                                    + o.module()
                                    + ":"
                                    + versions.getProperty(o.module()));
        }
    }
}
