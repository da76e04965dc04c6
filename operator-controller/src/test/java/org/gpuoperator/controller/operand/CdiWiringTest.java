package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

/** What spec.cdi renders: toolkit env and mount, device plugin env, RuntimeClasses. */
class CdiWiringTest {

    private final OperandModels models = new OperandModels(Map.of());
    private final PolicySettings on = TestPolicies.allEnabled();
    private final PolicySettings onDefault = on.withCdi(new PolicySettings.Cdi(true, true));
    private final PolicySettings off = on.withCdi(new PolicySettings.Cdi(false, false));

    private DaemonSet ds(PolicySettings p, Operand o) {
        return models.render(p, o, "gpu-operator").stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    /** The container's env as name=value, in order (valueFrom entries left out). */
    private List<String> env(PolicySettings p, Operand o) {
        return ds(p, o)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst()
                .getEnv()
                .stream()
                .filter(e -> e.getValue() != null)
                .map(e -> e.getName() + "=" + e.getValue())
                .toList();
    }

    private List<String> hostPaths(PolicySettings p, Operand o) {
        return ds(p, o).getSpec().getTemplate().getSpec().getVolumes().stream()
                .map(v -> v.getHostPath().getPath())
                .toList();
    }

    private static List<String> classes(List<RuntimeClass> rcs) {
        return rcs.stream().map(rc -> rc.getMetadata().getName() + "->" + rc.getHandler()).toList();
    }

    private static PolicySettings withUserEnv(PolicySettings p, Operand o, String name, String v) {
        return p.withOperand(o, p.operand(o).withEnv(List.of(new EnvVar(name, v, null))));
    }

    @Test
    void cdiOnByDefault() {
        assertThat(on.cdi()).isEqualTo(new PolicySettings.Cdi(true, false));
        assertThat(env(on, Operand.CONTAINER_TOOLKIT))
                .contains(
                        "CDI_ENABLED=true",
                        "NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES=cdi.k8s.io/",
                        // as upstream's operator: NVIDIA_VISIBLE_DEVICES=all of a management
                        // container resolves in the management spec
                        "NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND=management.nvidia.com/gpu")
                .noneMatch(e -> e.startsWith("NVIDIA_CONTAINER_RUNTIME_MODE="));
        assertThat(hostPaths(on, Operand.CONTAINER_TOOLKIT)).contains("/var/run/cdi");
        assertThat(env(on, Operand.DEVICE_PLUGIN))
                .contains(
                        "DEVICE_LIST_STRATEGY=cdi-annotations,cdi-cri",
                        "CDI_ANNOTATION_PREFIX=cdi.k8s.io/");
        // the handlers the toolkit registers: <runtimeClass>, <runtimeClass>-cdi, -legacy
        assertThat(classes(models.runtimeClasses(on)))
                .containsExactly(
                        "nvidia->nvidia", "nvidia-cdi->nvidia-cdi", "nvidia-legacy->nvidia-legacy");
        assertThat(OperandModels.unwantedRuntimeClasses(on)).isEmpty();
    }

    @Test
    void cdiDefaultPutsTheNvidiaRuntimeInCdiMode() {
        assertThat(env(onDefault, Operand.CONTAINER_TOOLKIT))
                .contains("CDI_ENABLED=true", "NVIDIA_CONTAINER_RUNTIME_MODE=cdi");
    }

    @Test
    void cdiOffRemovesWhatItAdded() {
        assertThat(env(off, Operand.CONTAINER_TOOLKIT))
                .contains("CDI_ENABLED=false")
                .noneMatch(e -> e.startsWith("NVIDIA_CONTAINER_RUNTIME_MODE"));
        assertThat(env(off, Operand.CONTAINER_TOOLKIT))
                .noneMatch(e -> e.startsWith("NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND"));
        assertThat(hostPaths(off, Operand.CONTAINER_TOOLKIT)).doesNotContain("/var/run/cdi");
        assertThat(env(off, Operand.DEVICE_PLUGIN))
                .contains("DEVICE_LIST_STRATEGY=envvar")
                .noneMatch(e -> e.startsWith("CDI_ANNOTATION_PREFIX="));
        assertThat(classes(models.runtimeClasses(off))).containsExactly("nvidia->nvidia");
        assertThat(OperandModels.unwantedRuntimeClasses(off))
                .containsExactly(
                        new ObjectRef(RuntimeClass.class, null, "nvidia-cdi"),
                        new ObjectRef(RuntimeClass.class, null, "nvidia-legacy"));
        assertThat(
                        ds(off, Operand.CONTAINER_TOOLKIT)
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations())
                .as("the template hash changes, so the pods roll")
                .isNotEqualTo(
                        ds(on, Operand.CONTAINER_TOOLKIT)
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations());
    }

    @Test
    void userEnvWinsOverEachVariable() {
        PolicySettings p = withUserEnv(on, Operand.CONTAINER_TOOLKIT, "CDI_ENABLED", "false");
        assertThat(env(p, Operand.CONTAINER_TOOLKIT))
                .as("the user's value only, once")
                .filteredOn(e -> e.startsWith("CDI_ENABLED="))
                .containsExactly("CDI_ENABLED=false");
        assertThat(hostPaths(p, Operand.CONTAINER_TOOLKIT))
                .as("the mount follows the toolkit's effective CDI_ENABLED")
                .doesNotContain("/var/run/cdi");
        PolicySettings q = withUserEnv(off, Operand.CONTAINER_TOOLKIT, "CDI_ENABLED", "true");
        assertThat(hostPaths(q, Operand.CONTAINER_TOOLKIT)).contains("/var/run/cdi");

        PolicySettings d =
                withUserEnv(on, Operand.DEVICE_PLUGIN, "DEVICE_LIST_STRATEGY", "cdi-cri");
        assertThat(env(d, Operand.DEVICE_PLUGIN))
                .filteredOn(e -> e.startsWith("DEVICE_LIST_STRATEGY="))
                .containsExactly("DEVICE_LIST_STRATEGY=cdi-cri");
        PolicySettings prefix =
                withUserEnv(on, Operand.DEVICE_PLUGIN, "CDI_ANNOTATION_PREFIX", "example.com/");
        assertThat(env(prefix, Operand.DEVICE_PLUGIN))
                .filteredOn(e -> e.startsWith("CDI_ANNOTATION_PREFIX="))
                .containsExactly("CDI_ANNOTATION_PREFIX=example.com/");
    }

    @Test
    void handlersFollowACustomRuntimeClass() {
        PolicySettings custom = on.toBuilder().runtimeClass("nvidia-gpu").build();
        assertThat(classes(models.runtimeClasses(custom)))
                .containsExactly(
                        "nvidia-gpu->nvidia-gpu",
                        "nvidia-cdi->nvidia-gpu-cdi",
                        "nvidia-legacy->nvidia-gpu-legacy");
    }
}
