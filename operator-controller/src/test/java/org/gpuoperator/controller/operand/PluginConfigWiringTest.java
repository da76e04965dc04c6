package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

/** spec.devicePlugin.config in the device plugin's and feature discovery's objects. */
class PluginConfigWiringTest {

    private final OperandModels renderer = new OperandModels(Map.of());
    private final PolicySettings plain = TestPolicies.allEnabled();
    private final PolicySettings withConfig =
            plain.withPluginConfig(new PolicySettings.PluginConfig("plugin-config", "ts-10"));

    private List<HasMetadata> objects(PolicySettings p, Operand o) {
        return renderer.render(p, o, "gpu-operator");
    }

    private DaemonSet ds(PolicySettings p, Operand o) {
        return objects(p, o).stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    private static Map<String, String> env(Container c) {
        return c.getEnv().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue, (a, b) -> b));
    }

    @Test
    void theConfigMapIsMountedIntoThePluginAndFeatureDiscoveryWithUpstreamsVariables() {
        for (Operand o : List.of(Operand.DEVICE_PLUGIN, Operand.GPU_FEATURE_DISCOVERY)) {
            var pod = ds(withConfig, o).getSpec().getTemplate().getSpec();
            assertThat(pod.getVolumes())
                    .as(o.id())
                    .filteredOn(v -> v.getName().equals("available-configs"))
                    .singleElement()
                    .satisfies(
                            v -> assertThat(v.getConfigMap().getName()).isEqualTo("plugin-config"));
            Container c = pod.getContainers().getFirst();
            assertThat(c.getVolumeMounts())
                    .filteredOn(m -> m.getName().equals("available-configs"))
                    .singleElement()
                    .satisfies(
                            m -> {
                                assertThat(m.getMountPath()).isEqualTo("/available-configs");
                                assertThat(m.getReadOnly()).isTrue();
                            });
            assertThat(env(c))
                    .as(o.id())
                    .containsEntry("CONFIG_FILE_SRCDIR", "/available-configs")
                    .containsEntry("DEFAULT_CONFIG", "ts-10");
        }
        // without a default, no DEFAULT_CONFIG: a node without the label runs no named config
        var noDefault =
                plain.withPluginConfig(new PolicySettings.PluginConfig("plugin-config", null));
        assertThat(
                        env(
                                ds(noDefault, Operand.DEVICE_PLUGIN)
                                        .getSpec()
                                        .getTemplate()
                                        .getSpec()
                                        .getContainers()
                                        .getFirst()))
                .containsKey("CONFIG_FILE_SRCDIR")
                .doesNotContainKey("DEFAULT_CONFIG");
        // the exporter, toolkit, ... do not read it
        assertThat(
                        ds(withConfig, Operand.DCGM_EXPORTER)
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getVolumes())
                .noneMatch(v -> v.getName().equals("available-configs"));
    }

    @Test
    void withoutAConfigNothingIsMountedAndThePluginHasNoRoleAndNoToken() {
        for (Operand o : List.of(Operand.DEVICE_PLUGIN, Operand.GPU_FEATURE_DISCOVERY)) {
            var pod = ds(plain, o).getSpec().getTemplate().getSpec();
            assertThat(pod.getVolumes()).noneMatch(v -> v.getName().equals("available-configs"));
            assertThat(env(pod.getContainers().getFirst()))
                    .doesNotContainKeys("CONFIG_FILE_SRCDIR", "DEFAULT_CONFIG");
        }
        assertThat(objects(plain, Operand.DEVICE_PLUGIN)).noneMatch(ClusterRole.class::isInstance);
        ServiceAccount sa =
                objects(plain, Operand.DEVICE_PLUGIN).stream()
                        .filter(ServiceAccount.class::isInstance)
                        .map(ServiceAccount.class::cast)
                        .findFirst()
                        .orElseThrow();
        assertThat(sa.getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void withAConfigBothAgentsMayWatchTheirNodeAndThePluginMayAnnotateIt() {
        ClusterRole plugin = clusterRole(withConfig, Operand.DEVICE_PLUGIN);
        assertThat(plugin.getRules())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getResources()).containsExactly("nodes");
                            assertThat(r.getVerbs())
                                    .containsExactly("get", "list", "watch", "patch");
                        });
        assertThat(objects(withConfig, Operand.DEVICE_PLUGIN))
                .anyMatch(ClusterRoleBinding.class::isInstance);
        assertThat(
                        clusterRole(withConfig, Operand.GPU_FEATURE_DISCOVERY)
                                .getRules()
                                .getFirst()
                                .getVerbs())
                .containsExactly("get", "list", "watch", "patch");
        assertThat(
                        clusterRole(plain, Operand.GPU_FEATURE_DISCOVERY)
                                .getRules()
                                .getFirst()
                                .getVerbs())
                .containsExactly("get", "patch");
    }

    @Test
    void thePluginsClusterRoleIsDeletedWhenTheConfigGoesAndKnownForADisabledPlugin() {
        String account = Operand.DEVICE_PLUGIN.serviceAccountName();
        assertThat(OperandModels.unwantedRbac(plain))
                .containsExactly(
                        new ObjectRef(ClusterRoleBinding.class, null, account),
                        new ObjectRef(ClusterRole.class, null, account));
        assertThat(OperandModels.unwantedRbac(withConfig)).isEmpty();
        assertThat(OperandModels.objectRefs(Operand.DEVICE_PLUGIN, "gpu-operator"))
                .contains(
                        new ObjectRef(ClusterRole.class, null, account),
                        new ObjectRef(ClusterRoleBinding.class, null, account));
    }

    private ClusterRole clusterRole(PolicySettings p, Operand o) {
        return objects(p, o).stream()
                .filter(ClusterRole.class::isInstance)
                .map(ClusterRole.class::cast)
                .findFirst()
                .orElseThrow();
    }
}
