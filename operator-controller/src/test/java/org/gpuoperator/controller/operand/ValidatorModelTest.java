package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection.ContainerRuntime;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

/** The validator's DaemonSet as the validator contract asks for it. */
class ValidatorModelTest {

    private final OperandModels renderer = new OperandModels(Map.of());
    private final PolicySettings policy = TestPolicies.allEnabled();

    private List<HasMetadata> objects(PolicySettings p) {
        return renderer.render(p, Operand.VALIDATOR, "gpu-operator");
    }

    private DaemonSet ds(PolicySettings p) {
        return objects(p).stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    private static Container container(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    private static Map<String, String> env(Container c) {
        return c.getEnv().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue, (a, b) -> b));
    }

    private static PolicySettings with(PolicySettings p, Operand o, boolean on) {
        return p.withOperand(o, p.operand(o).withEnabled(on));
    }

    @Test
    void namesAreUpstreamsAndTheContainerRunsTheValidatorCommand() {
        DaemonSet ds = ds(policy);
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        Container c = container(ds);
        assertThat(ds.getMetadata().getName()).isEqualTo("nvidia-operator-validator");
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("app", "nvidia-operator-validator")
                .containsEntry("app.kubernetes.io/name", "validator");
        assertThat(pod.getServiceAccountName()).isEqualTo("nvidia-operator-validator");
        assertThat(pod.getNodeSelector())
                .containsExactly(Map.entry("nvidia.com/gpu.deploy.operator-validator", "true"));
        assertThat(c.getName()).isEqualTo("nvidia-operator-validator");
        assertThat(c.getCommand())
                .as("the image's entrypoint runs the validator daemon")
                .isNullOrEmpty();
        assertThat(c.getImage()).isEqualTo("ghcr.io/gpu-operator/validator:0.1.0");
    }

    @Test
    void theManagedFlagsFollowTheEnabledOperands() {
        assertThat(env(container(ds(policy))))
                .containsEntry("DRIVER_MANAGED", "true")
                .containsEntry("TOOLKIT_MANAGED", "true")
                .containsEntry("PLUGIN_MANAGED", "true");
        PolicySettings hostStack =
                with(
                        with(with(policy, Operand.DRIVER, false), Operand.CONTAINER_TOOLKIT, false),
                        Operand.DEVICE_PLUGIN,
                        false);
        assertThat(env(container(ds(hostStack))))
                .containsEntry("DRIVER_MANAGED", "false")
                .containsEntry("TOOLKIT_MANAGED", "false")
                .containsEntry("PLUGIN_MANAGED", "false");
    }

    @Test
    void envCarriesTheRuntimeTheWorkloadImageAndTheNodeAndNamespace() {
        PolicySettings custom =
                policy.toBuilder()
                        .runtimeClass("nvidia-custom")
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        Container c = container(ds(custom));
        Map<String, String> env = env(c);
        assertThat(env)
                .containsEntry("RUNTIME_CLASS", "nvidia-custom")
                .containsEntry("RUNTIME_HANDLER", "nvidia-custom")
                .containsEntry("RUNTIME_SOCKET", "/run/containerd/containerd.sock")
                .containsEntry("WORKLOAD_IMAGE", c.getImage())
                .containsEntry("GPU_SOURCE", "nvml")
                .containsEntry("HOST_ROOT", "/host")
                .containsEntry("HEALTH_ADDRESS", ":8081")
                .containsEntry("METRICS_ADDRESS", ":8000")
                .containsEntry("VALIDATIONS_DIR", "/run/nvidia/validations");
        Map<String, String> fieldRefs =
                c.getEnv().stream()
                        .filter(e -> e.getValueFrom() != null)
                        .collect(
                                Collectors.toMap(
                                        EnvVar::getName,
                                        e -> e.getValueFrom().getFieldRef().getFieldPath()));
        assertThat(fieldRefs)
                .containsEntry("NODE_NAME", "spec.nodeName")
                .containsEntry("NAMESPACE", "metadata.namespace");
        // it must start before the toolkit configured the nvidia runtime: no runtime class
        assertThat(ds(custom).getSpec().getTemplate().getSpec().getRuntimeClassName()).isNull();
        assertThat(env(container(ds(policy)))).containsEntry("GPU_SOURCE", "simulated:t4-x1");
    }

    @Test
    void validatorFieldsAndPerStepEnvAreHonouredWithTheUsersEnvLast() {
        OperandSettings own =
                new OperandSettings(
                        true,
                        "registry.example.com/nvidia",
                        "validator",
                        "9.9.9",
                        "Always",
                        List.of("pull-secret"),
                        List.of("--recheck-interval=1m"),
                        List.of(new EnvVar("WITH_WORKLOAD", "false", null)),
                        null);
        PolicySettings p =
                policy.withOperand(Operand.VALIDATOR, own)
                        .withNodeReadiness(
                                new PolicySettings.NodeReadiness(
                                        null,
                                        Map.of(
                                                "driver",
                                                List.of(
                                                        new EnvVar(
                                                                "DISABLE_DEV_CHAR_SYMLINK_CREATION",
                                                                "true",
                                                                null)),
                                                "plugin",
                                                List.of(new EnvVar("WITH_WORKLOAD", "true", null))),
                                        false));
        DaemonSet ds = ds(p);
        Container c = container(ds);
        assertThat(c.getImage()).isEqualTo("registry.example.com/nvidia/validator:9.9.9");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(c.getArgs()).containsExactly("--recheck-interval=1m");
        assertThat(ds.getSpec().getTemplate().getSpec().getImagePullSecrets())
                .extracting(r -> r.getName())
                .containsExactly("pull-secret");
        assertThat(env(c))
                .containsEntry("DISABLE_DEV_CHAR_SYMLINK_CREATION", "true")
                .containsEntry("WORKLOAD_IMAGE", "registry.example.com/nvidia/validator:9.9.9");
        // validator.env comes after validator.plugin.env: the last one wins in Kubernetes
        List<String> names = c.getEnv().stream().map(EnvVar::getName).toList();
        assertThat(names.lastIndexOf("WITH_WORKLOAD")).isEqualTo(names.size() - 1);
        assertThat(c.getEnv().getLast().getValue()).isEqualTo("false");
    }

    @Test
    void mountsHostRootReadOnlyDevRunNvidiaAndTheContainerdSocket() {
        DaemonSet ds = ds(policy);
        Map<String, Volume> volumes =
                ds.getSpec().getTemplate().getSpec().getVolumes().stream()
                        .collect(Collectors.toMap(Volume::getName, v -> v));
        Map<String, VolumeMount> mounts =
                container(ds).getVolumeMounts().stream()
                        .collect(Collectors.toMap(VolumeMount::getName, m -> m));
        assertThat(volumes.get("host-root").getHostPath().getPath()).isEqualTo("/");
        assertThat(mounts.get("host-root").getMountPath()).isEqualTo("/host");
        assertThat(mounts.get("host-root").getReadOnly()).isTrue();
        assertThat(mounts.get("host-root").getMountPropagation()).isEqualTo("HostToContainer");
        assertThat(volumes.get("host-dev").getHostPath().getPath()).isEqualTo("/dev");
        assertThat(mounts.get("host-dev").getMountPath()).isEqualTo("/host/dev");
        assertThat(mounts.get("host-dev").getReadOnly()).isNull();
        assertThat(volumes.get("run-nvidia").getHostPath().getPath()).isEqualTo("/run/nvidia");
        assertThat(mounts.get("run-nvidia").getMountPath()).isEqualTo("/run/nvidia");
        assertThat(mounts.get("run-nvidia").getMountPropagation()).isEqualTo("HostToContainer");
        assertThat(volumes.get("containerd-socket").getHostPath().getPath())
                .isEqualTo("/run/containerd");
        assertThat(mounts.get("containerd-socket").getMountPath()).isEqualTo("/run/containerd");
        // simulation: the injected faults of the simulated GPUs
        assertThat(mounts.get("simulated-gpu").getMountPath())
                .isEqualTo("/host/run/nvidia/simulated-gpu");
        PolicySettings real =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        assertThat(container(ds(real)).getVolumeMounts())
                .extracting(VolumeMount::getName)
                .doesNotContain("simulated-gpu");
    }

    @Test
    void privilegedWithReadinessOnReadyzAndMetricsOnPort8000() {
        Container c = container(ds(policy));
        assertThat(c.getSecurityContext().getPrivileged()).isTrue();
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
        assertThat(c.getPorts())
                .extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("health:8081", "metrics:8000");
    }

    @Test
    void rbacIsNodesGetPatchAndItsWorkloadPodsAndEventsInTheNamespace() {
        List<HasMetadata> objects = objects(policy);
        ClusterRole cluster =
                objects.stream()
                        .filter(ClusterRole.class::isInstance)
                        .map(ClusterRole.class::cast)
                        .findFirst()
                        .orElseThrow();
        Role role =
                objects.stream()
                        .filter(Role.class::isInstance)
                        .map(Role.class::cast)
                        .findFirst()
                        .orElseThrow();
        assertThat(cluster.getMetadata().getName()).isEqualTo("nvidia-operator-validator");
        assertThat(rules(cluster.getRules())).containsExactly("nodes:get,patch");
        assertThat(role.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        assertThat(rules(role.getRules())).containsExactly("pods:create,get,delete", "events:list");
    }

    private static List<String> rules(List<PolicyRule> rules) {
        return rules.stream()
                .map(r -> String.join(",", r.getResources()) + ":" + String.join(",", r.getVerbs()))
                .toList();
    }

    @Test
    void theDriverAgentGetsTheDriverVersionFromThePolicyOnlyWhenOneIsSet() {
        Map<String, String> without =
                env(
                        renderer.render(policy, Operand.DRIVER, "ns").stream()
                                .filter(DaemonSet.class::isInstance)
                                .map(DaemonSet.class::cast)
                                .map(ValidatorModelTest::container)
                                .findFirst()
                                .orElseThrow());
        assertThat(without).doesNotContainKey("DRIVER_VERSION");
        PolicySettings p =
                policy.withNodeReadiness(
                        new PolicySettings.NodeReadiness("550.54.15", Map.of(), false));
        Map<String, String> with =
                env(
                        renderer.render(p, Operand.DRIVER, "ns").stream()
                                .filter(DaemonSet.class::isInstance)
                                .map(DaemonSet.class::cast)
                                .map(ValidatorModelTest::container)
                                .findFirst()
                                .orElseThrow());
        assertThat(with).containsEntry("DRIVER_VERSION", "550.54.15");
    }

    @Test
    void withTheTaintOptedInEveryOperandPodToleratesIt() {
        PolicySettings optIn =
                policy.withNodeReadiness(new PolicySettings.NodeReadiness(null, Map.of(), true));
        for (Operand o : Operand.values()) {
            var tolerations =
                    renderer.render(optIn, o, "ns").stream()
                            .filter(DaemonSet.class::isInstance)
                            .map(DaemonSet.class::cast)
                            .findFirst()
                            .orElseThrow()
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getTolerations();
            assertThat(tolerations)
                    .as(o.id())
                    .anySatisfy(
                            t -> {
                                assertThat(t.getKey()).isEqualTo("nvidia.com/gpu-not-ready");
                                assertThat(t.getEffect()).isEqualTo("NoSchedule");
                            })
                    .anySatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu"));
            assertThat(ds(policy).getSpec().getTemplate().getSpec().getTolerations())
                    .noneSatisfy(t -> assertThat(t.getKey()).isEqualTo("nvidia.com/gpu-not-ready"));
        }
    }

    @Test
    void theCriSocketIsTheRenderedRuntimesWhereToolkitEnvPutsIt() {
        // CRI-O detected on the nodes: its socket, its directory mounted at the same path
        PolicySettings crio = ContainerRuntimeDetection.apply(policy, ContainerRuntime.CRIO);
        assertThat(env(container(ds(crio))))
                .containsEntry("RUNTIME_SOCKET", "/var/run/crio/crio.sock");
        assertThat(socketMount(crio)).isEqualTo("crio-socket /var/run/crio -> /var/run/crio");

        // containerd detected: as before
        PolicySettings containerd =
                ContainerRuntimeDetection.apply(policy, ContainerRuntime.CONTAINERD);
        assertThat(env(container(ds(containerd))))
                .containsEntry("RUNTIME_SOCKET", "/run/containerd/containerd.sock");
        assertThat(socketMount(containerd))
                .isEqualTo("containerd-socket /run/containerd -> /run/containerd");

        // k3s: the socket the user gives the toolkit is the one the validator asks
        PolicySettings k3s =
                ContainerRuntimeDetection.apply(
                        policy.withOperand(
                                Operand.CONTAINER_TOOLKIT,
                                policy.operand(Operand.CONTAINER_TOOLKIT)
                                        .withEnv(
                                                List.of(
                                                        new EnvVar(
                                                                "CONTAINERD_SOCKET",
                                                                "/run/k3s/containerd/containerd.sock",
                                                                null)))),
                        ContainerRuntime.CONTAINERD);
        assertThat(env(container(ds(k3s))))
                .containsEntry("RUNTIME_SOCKET", "/run/k3s/containerd/containerd.sock");
        assertThat(socketMount(k3s))
                .isEqualTo("containerd-socket /run/k3s/containerd -> /run/k3s/containerd");

        // Docker serves CRI through cri-dockerd
        PolicySettings docker = ContainerRuntimeDetection.apply(policy, ContainerRuntime.DOCKER);
        assertThat(env(container(ds(docker))))
                .containsEntry("RUNTIME_SOCKET", "/var/run/cri-dockerd.sock");
    }

    /** The one socket mount: {@code name hostPath -> mountPath}. */
    private String socketMount(PolicySettings p) {
        DaemonSet ds = ds(p);
        List<String> sockets =
                container(ds).getVolumeMounts().stream()
                        .filter(m -> m.getName().endsWith("-socket"))
                        .map(
                                m ->
                                        m.getName()
                                                + " "
                                                + ds
                                                        .getSpec()
                                                        .getTemplate()
                                                        .getSpec()
                                                        .getVolumes()
                                                        .stream()
                                                        .filter(
                                                                v ->
                                                                        v.getName()
                                                                                .equals(
                                                                                        m
                                                                                                .getName()))
                                                        .findFirst()
                                                        .orElseThrow()
                                                        .getHostPath()
                                                        .getPath()
                                                + " -> "
                                                + m.getMountPath())
                        .toList();
        assertThat(sockets).hasSize(1);
        return sockets.getFirst();
    }
}
