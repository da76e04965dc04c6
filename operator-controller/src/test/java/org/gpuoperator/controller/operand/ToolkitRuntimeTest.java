package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection.ContainerRuntime;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection.Detected;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

/**
 * The toolkit pod for each container runtime: detection from the nodes, the mounts and env that
 * follow it (and toolkit.env), what the default restart mode needs, and the RuntimeClass handler.
 */
class ToolkitRuntimeTest {

    private final OperandModels renderer = new OperandModels(Map.of());

    static Node node(String name, String runtimeVersion, boolean gpu) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(gpu ? Map.of("nvidia.com/gpu.present", "true") : Map.of())
                .endMetadata()
                .withNewStatus()
                .withNewNodeInfo()
                .withContainerRuntimeVersion(runtimeVersion)
                .endNodeInfo()
                .endStatus()
                .build();
    }

    // ---- detection ----

    @Test
    void eachRuntimeVersionSchemeGivesItsRuntime() {
        assertThat(detect("containerd://1.7.2")).isEqualTo(ContainerRuntime.CONTAINERD);
        assertThat(detect("cri-o://1.30.0")).isEqualTo(ContainerRuntime.CRIO);
        assertThat(detect("docker://24.0.7")).isEqualTo(ContainerRuntime.DOCKER);
    }

    private static ContainerRuntime detect(String version) {
        Detected d = ContainerRuntimeDetection.detect(List.of(node("n1", version, true)));
        assertThat(d.warnings()).isEmpty();
        return d.runtime();
    }

    @Test
    void theFirstGpuNodeDecidesAndMixedGpuNodesGiveAWarningNamingThem() {
        Detected d =
                ContainerRuntimeDetection.detect(
                        List.of(
                                node("cpu-1", "docker://24.0.7", false),
                                node("gpu-1", "cri-o://1.30.0", true),
                                node("gpu-2", "containerd://1.7.2", true),
                                node("gpu-3", "cri-o://1.30.1", true)));
        assertThat(d.runtime()).isEqualTo(ContainerRuntime.CRIO);
        assertThat(d.warnings())
                .containsExactly(
                        "GPU nodes run a container runtime the toolkit is not rendered for:"
                                + " containerd (gpu-2); it is rendered for crio, the first node's"
                                + " runtime, and cannot work on them");
    }

    @Test
    void theStatusWarningsNameTheNodesWhoseRuntimeIsNotTheRenderedOne() {
        Detected mixed =
                ContainerRuntimeDetection.detect(
                        List.of(
                                node("gpu-1", "containerd://1.7.2", true),
                                node("gpu-2", "cri-o://1.30.0", true),
                                node("gpu-3", "cri-o://1.30.0", true)));
        PolicySettings detected =
                ContainerRuntimeDetection.apply(TestPolicies.allEnabled(), mixed.runtime());
        assertThat(ContainerRuntimeDetection.statusWarnings(mixed, detected))
                .extracting(w -> w.getPath() + ": " + w.getMessage())
                .containsExactly(
                        "spec.toolkit: GPU nodes run a container runtime the toolkit is not"
                                + " rendered for: crio (gpu-2, gpu-3); it is rendered for"
                                + " containerd, the first node's runtime, and cannot work on them");

        // the user's RUNTIME is what the toolkit is rendered for: the others are named
        PolicySettings p = TestPolicies.allEnabled();
        PolicySettings userCrio =
                p.withOperand(
                        Operand.CONTAINER_TOOLKIT,
                        p.operand(Operand.CONTAINER_TOOLKIT)
                                .withEnv(List.of(new EnvVar("RUNTIME", "crio", null))));
        assertThat(
                        ContainerRuntimeDetection.statusWarnings(
                                mixed, ContainerRuntimeDetection.apply(userCrio, mixed.runtime())))
                .extracting(w -> w.getMessage())
                .containsExactly(
                        "GPU nodes run a container runtime the toolkit is not rendered for:"
                                + " containerd (gpu-1); it is rendered for crio, spec.toolkit.env"
                                + " RUNTIME, and cannot work on them");

        // one runtime everywhere, rendered for it: nothing to say
        Detected same =
                ContainerRuntimeDetection.detect(
                        List.of(
                                node("gpu-1", "cri-o://1.30.0", true),
                                node("cpu-1", "containerd://1.7.2", false)));
        assertThat(
                        ContainerRuntimeDetection.statusWarnings(
                                same, ContainerRuntimeDetection.apply(p, same.runtime())))
                .isEmpty();
    }

    @Test
    void withoutGpuNodesTheFirstNodeDecidesAndWithoutNodesContainerd() {
        assertThat(
                        ContainerRuntimeDetection.detect(
                                        List.of(node("cpu-1", "docker://24.0.7", false)))
                                .runtime())
                .isEqualTo(ContainerRuntime.DOCKER);
        Detected none = ContainerRuntimeDetection.detect(List.of());
        assertThat(none.runtime()).isEqualTo(ContainerRuntime.CONTAINERD);
        assertThat(none.warnings()).isEmpty();
    }

    @Test
    void anUnknownRuntimeIsNamedInAWarning() {
        Detected d = ContainerRuntimeDetection.detect(List.of(node("g", "rkt://1.0", true)));
        assertThat(d.runtime()).isEqualTo(ContainerRuntime.CONTAINERD);
        assertThat(d.warnings())
                .singleElement()
                .asString()
                .contains("node g runs container runtime 'rkt://1.0'");
    }

    // ---- rendering ----

    private PodSpec pod(PolicySettings p) {
        DaemonSet ds =
                renderer.render(p, Operand.CONTAINER_TOOLKIT, "gpu-operator").stream()
                        .filter(DaemonSet.class::isInstance)
                        .map(DaemonSet.class::cast)
                        .findFirst()
                        .orElseThrow();
        return ds.getSpec().getTemplate().getSpec();
    }

    /** Container path → host path of every hostPath mount. */
    private static Map<String, String> mounts(PodSpec pod) {
        Map<String, String> volumes = new LinkedHashMap<>();
        for (Volume v : pod.getVolumes()) {
            volumes.put(v.getName(), v.getHostPath().getPath());
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (VolumeMount vm : pod.getContainers().getFirst().getVolumeMounts()) {
            m.put(vm.getMountPath(), volumes.get(vm.getName()));
        }
        return m;
    }

    /** The env as the agent sees it: the last entry of a name wins. */
    private static Map<String, String> env(PodSpec pod) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar e : pod.getContainers().getFirst().getEnv()) {
            env.put(e.getName(), e.getValue());
        }
        return env;
    }

    private static PolicySettings real(ContainerRuntime runtime, EnvVar... toolkitEnv) {
        PolicySettings p = TestPolicies.allEnabled();
        p =
                p.toBuilder()
                        .runtimeClass("nvidia")
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        p =
                p.withOperand(
                        Operand.CONTAINER_TOOLKIT,
                        p.operand(Operand.CONTAINER_TOOLKIT).withEnv(List.of(toolkitEnv)));
        return ContainerRuntimeDetection.apply(p, runtime);
    }

    @Test
    void containerdGetsItsConfigDirSocketDirAndEnv() {
        PodSpec pod = pod(real(ContainerRuntime.CONTAINERD));
        assertThat(mounts(pod))
                .containsEntry("/host", "/")
                .containsEntry("/host/etc/containerd", "/etc/containerd")
                .containsEntry("/host/run/containerd", "/run/containerd")
                .containsEntry("/host/var/lib/toolkit-agent", "/var/lib/toolkit-agent")
                .containsEntry("/host/usr/local/nvidia", "/usr/local/nvidia")
                .doesNotContainKey("/host/etc/crio");
        assertThat(env(pod))
                .containsEntry("RUNTIME", "containerd")
                .containsEntry("RUNTIME_CONFIG", "/etc/containerd/config.toml")
                .containsEntry("RUNTIME_SOCKET", "/run/containerd/containerd.sock")
                .containsEntry("HOST_ROOT", "/host")
                .doesNotContainKey("CONTAINERD_SKIP_VALIDATION");
        assertThat(
                        pod.getContainers().getFirst().getVolumeMounts().stream()
                                .filter(m -> m.getMountPath().equals("/host"))
                                .findFirst()
                                .orElseThrow()
                                .getReadOnly())
                .as("the host root is read-only; only the runtime's dirs are writable")
                .isTrue();
    }

    @Test
    void crioGetsEtcCrioAndItsSocketAndDockerItsOwn() {
        PodSpec crio = pod(real(ContainerRuntime.CRIO));
        assertThat(mounts(crio))
                .containsEntry("/host/etc/crio", "/etc/crio")
                .containsEntry("/host/var/run/crio", "/var/run/crio")
                .doesNotContainKey("/host/etc/containerd")
                .doesNotContainKey("/host/run/containerd");
        assertThat(env(crio))
                .containsEntry("RUNTIME", "crio")
                .containsEntry("RUNTIME_CONFIG", "/etc/crio/crio.conf.d/99-nvidia.toml")
                .containsEntry("RUNTIME_SOCKET", "/var/run/crio/crio.sock");

        PodSpec docker = pod(real(ContainerRuntime.DOCKER));
        assertThat(mounts(docker))
                .containsEntry("/host/etc/docker", "/etc/docker")
                .containsEntry("/host/var/run", "/var/run")
                .doesNotContainKey("/host/etc/containerd");
        assertThat(env(docker))
                .containsEntry("RUNTIME", "docker")
                .containsEntry("RUNTIME_CONFIG", "/etc/docker/daemon.json")
                .containsEntry("RUNTIME_SOCKET", "/var/run/docker.sock");
    }

    @Test
    void k3sPathsFromToolkitEnvMoveTheMountsAndTheAgentsEnv() {
        PodSpec pod =
                pod(
                        real(
                                ContainerRuntime.CONTAINERD,
                                new EnvVar(
                                        "CONTAINERD_CONFIG",
                                        "/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl",
                                        null),
                                new EnvVar(
                                        "CONTAINERD_SOCKET",
                                        "/run/k3s/containerd/containerd.sock",
                                        null)));
        assertThat(mounts(pod))
                .containsEntry(
                        "/host/var/lib/rancher/k3s/agent/etc/containerd",
                        "/var/lib/rancher/k3s/agent/etc/containerd")
                .containsEntry("/host/run/k3s/containerd", "/run/k3s/containerd")
                // the containerd-2 drop-in's dir is not under k3s's config dir: mounted too
                .containsEntry("/host/etc/containerd/conf.d", "/etc/containerd/conf.d")
                .doesNotContainKey("/host/run/containerd");
        assertThat(env(pod))
                .containsEntry(
                        "RUNTIME_CONFIG",
                        "/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl")
                .containsEntry("RUNTIME_SOCKET", "/run/k3s/containerd/containerd.sock");
    }

    @Test
    void aUserRuntimeWinsOverTheDetectedOneAndARelativePathIsRefused() {
        PodSpec pod = pod(real(ContainerRuntime.CONTAINERD, new EnvVar("RUNTIME", "docker", null)));
        assertThat(env(pod)).containsEntry("RUNTIME", "docker");
        assertThat(mounts(pod)).containsEntry("/host/etc/docker", "/etc/docker");
        assertThat(
                        pod.getContainers().getFirst().getEnv().stream()
                                .filter(e -> e.getName().equals("RUNTIME"))
                                .count())
                .isEqualTo(1);

        PolicySettings bad =
                real(
                        ContainerRuntime.CONTAINERD,
                        new EnvVar("CONTAINERD_CONFIG", "config.toml", null));
        assertThatThrownBy(() -> pod(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("spec.toolkit.env CONTAINERD_CONFIG")
                .hasMessageContaining("absolute");
    }

    @Test
    void theDefaultRestartModeGetsHostPidAndChrootAndSimulationSaysItSkipsValidation() {
        PodSpec pod = pod(real(ContainerRuntime.CONTAINERD));
        assertThat(pod.getHostPID()).as("signal mode: the runtime's PID").isTrue();
        Container c = pod.getContainers().getFirst();
        assertThat(c.getSecurityContext().getCapabilities().getAdd())
                .contains("KILL", "SYS_CHROOT");
        assertThat(env(pod(TestPolicies.allEnabled())))
                .containsEntry("CONTAINERD_SKIP_VALIDATION", "true");
    }

    @Test
    void theRuntimeClassNameIsTheHandlerTheAgentRegisters() {
        PolicySettings p = real(ContainerRuntime.CONTAINERD);
        p = p.toBuilder().runtimeClass("nvidia-gpu").build();
        assertThat(renderer.runtimeClass(p).getHandler()).isEqualTo("nvidia-gpu");
        assertThat(renderer.runtimeClass(p).getMetadata().getName()).isEqualTo("nvidia-gpu");
        assertThat(env(pod(p)))
                .containsEntry("NVIDIA_RUNTIME_NAME", "nvidia-gpu")
                .containsEntry("CONTAINERD_RUNTIME_CLASS", "nvidia-gpu");
    }

    @Test
    void detectionIsAddedAheadOfTheUsersEnvOnce() {
        PolicySettings p = TestPolicies.allEnabled();
        PolicySettings applied = ContainerRuntimeDetection.apply(p, ContainerRuntime.CRIO);
        List<EnvVar> env = new ArrayList<>(applied.operand(Operand.CONTAINER_TOOLKIT).env());
        assertThat(env).extracting(EnvVar::getName).containsExactly("RUNTIME");
        assertThat(ContainerRuntimeDetection.apply(applied, ContainerRuntime.DOCKER))
                .isEqualTo(applied);
    }
}
