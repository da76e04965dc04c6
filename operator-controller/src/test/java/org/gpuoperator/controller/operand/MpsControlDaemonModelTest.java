package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.MpsSpec;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.reconcile.DesiredState;
import org.junit.jupiter.api.Test;

/**
 * The device plugin's companion DaemonSet {@code nvidia-device-plugin-mps-control-daemon} (issue
 * 25, sharing.mps): what the device plugin agent's {@code mps-control-daemon} subcommand relies on,
 * and how it comes and goes with the device plugin.
 */
class MpsControlDaemonModelTest {

    private static final String NS = "gpu-operator";
    private static final String NAME = "nvidia-device-plugin-mps-control-daemon";

    private final OperandModels renderer = new OperandModels(Map.of());
    private final PolicySettings simulated = TestPolicies.allEnabled();

    /** A real node's policy: NVML, managed driver. */
    private final PolicySettings real =
            simulated.toBuilder()
                    .simulation(new PolicySettings.Simulation(false, null, null))
                    .build();

    private List<DaemonSet> daemonSets(PolicySettings p) {
        return renderer.render(p, Operand.DEVICE_PLUGIN, NS).stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .toList();
    }

    private DaemonSet daemon(PolicySettings p) {
        return daemonSets(p).stream()
                .filter(ds -> ds.getMetadata().getName().equals(NAME))
                .findFirst()
                .orElseThrow();
    }

    private DaemonSet plugin(PolicySettings p) {
        return daemonSets(p).stream()
                .filter(ds -> ds.getMetadata().getName().equals("nvidia-device-plugin-daemonset"))
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

    private static Volume volume(DaemonSet ds, String name) {
        return ds.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static VolumeMount mount(DaemonSet ds, String name) {
        return container(ds).getVolumeMounts().stream()
                .filter(m -> m.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theDevicePluginRendersTheDaemonAfterItsOwnDaemonSetUnderItsOwnNameAndLabels() {
        List<HasMetadata> objects = renderer.render(simulated, Operand.DEVICE_PLUGIN, NS);
        assertThat(objects.stream().filter(DaemonSet.class::isInstance))
                .extracting(o -> o.getMetadata().getName())
                .containsExactly("nvidia-device-plugin-daemonset", NAME);
        assertThat(objects.getLast().getMetadata().getName()).isEqualTo(NAME);
        // the plugin's service account only: no identity or RBAC of its own
        assertThat(objects.stream().filter(ServiceAccount.class::isInstance))
                .extracting(o -> o.getMetadata().getName())
                .containsExactly("nvidia-device-plugin");

        DaemonSet ds = daemon(simulated);
        assertThat(ds.getMetadata().getNamespace()).isEqualTo(NS);
        assertThat(ds.getMetadata().getLabels())
                .containsEntry("app", NAME)
                .containsEntry("app.kubernetes.io/component", "mps-control-daemon")
                .containsEntry("app.kubernetes.io/managed-by", "gpu-operator");
        assertThat(ds.getSpec().getSelector().getMatchLabels())
                .containsExactly(Map.entry("app", NAME));
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("app", NAME)
                .containsEntry("app.kubernetes.io/name", "mps-control-daemon")
                .containsEntry("app.kubernetes.io/component", "mps-control-daemon")
                .containsEntry("app.kubernetes.io/managed-by", "gpu-operator")
                .doesNotContainEntry("app.kubernetes.io/name", "device-plugin");
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "nvidia.com/gpu.deploy.device-plugin", "true",
                                "nvidia.com/mps.capable", "true"));
        assertThat(pod.getServiceAccountName()).isEqualTo("nvidia-device-plugin");
        assertThat(pod.getHostPID()).isTrue();
        assertThat(pod.getRuntimeClassName()).isEqualTo("nvidia");
        assertThat(pod.getContainers()).hasSize(1);
        Container c = container(ds);
        assertThat(c.getName()).isEqualTo("mps-control-daemon");
        assertThat(c.getImage()).isEqualTo(container(plugin(simulated)).getImage());
        assertThat(c.getCommand()).as("the image entrypoint").isNullOrEmpty();
        assertThat(c.getArgs()).containsExactly("mps-control-daemon");
        assertThat(c.getSecurityContext().getPrivileged()).isTrue();
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("health");
        // its own pod template, hashed as every operand's
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsKey(PodContract.TEMPLATE_HASH_ANNOTATION)
                .doesNotContainEntry(
                        PodContract.TEMPLATE_HASH_ANNOTATION,
                        plugin(simulated)
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(PodContract.TEMPLATE_HASH_ANNOTATION));
    }

    @Test
    void thePluginsArgsStayThePluginsWhileImagePullSettingsResourcesAndEnvAreShared() {
        OperandSettings dp =
                new OperandSettings(
                        true,
                        "registry.example.com/gpu",
                        "device-plugin",
                        "9.9.9",
                        "Always",
                        List.of("regcred"),
                        List.of("--fail-on-init-error=false"),
                        List.of(new EnvVar("EXTRA", "x", null)),
                        new ResourceRequirementsBuilder()
                                .addToLimits("memory", new Quantity("300Mi"))
                                .build());
        PolicySettings p = simulated.withOperand(Operand.DEVICE_PLUGIN, dp);
        Container c = container(daemon(p));
        assertThat(c.getArgs()).containsExactly("mps-control-daemon");
        assertThat(container(plugin(p)).getArgs()).containsExactly("--fail-on-init-error=false");
        assertThat(c.getImage()).isEqualTo("registry.example.com/gpu/device-plugin:9.9.9");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(c.getResources().getLimits()).containsEntry("memory", new Quantity("300Mi"));
        // the user's env too, last, as upstream sets devicePlugin.env on the daemon
        assertThat(c.getEnv()).extracting(EnvVar::getName).endsWith("EXTRA");
        assertThat(daemon(p).getSpec().getTemplate().getSpec().getImagePullSecrets())
                .extracting(r -> r.getName())
                .containsExactly("regcred");
    }

    @Test
    void theDaemonGetsTheCommonEnvNvmlAccessAndTheMpsRoot() {
        Map<String, String> env = env(container(daemon(real)));
        assertThat(container(daemon(real)).getEnv())
                .filteredOn(e -> e.getName().equals("NODE_NAME"))
                .singleElement()
                .satisfies(
                        e ->
                                assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                                        .isEqualTo("spec.nodeName"));
        assertThat(env)
                .containsEntry("GPU_SOURCE", "nvml")
                .containsEntry("VALIDATIONS_DIR", "/run/nvidia/validations")
                .containsEntry("HEALTH_ADDRESS", ":8081")
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "all")
                .containsEntry("NVIDIA_DRIVER_CAPABILITIES", "compute,utility")
                .containsEntry("NVIDIA_MIG_MONITOR_DEVICES", "all")
                .containsEntry("MIG_STRATEGY", "single")
                .containsEntry("MPS_ROOT", "/run/nvidia/mps")
                // the plugin's device list strategy is not the daemon's; no config, no config env
                .doesNotContainKeys(
                        "DEVICE_LIST_STRATEGY",
                        "CONFIG_FILE_SRCDIR",
                        "DEFAULT_CONFIG",
                        "HOST_ROOT",
                        "GFD_WAIT_FOR");
        // in simulation it reads the injected faults under the host root, as the plugin does
        Map<String, String> sim = env(container(daemon(simulated)));
        assertThat(sim)
                .containsEntry("GPU_SOURCE", "simulated:t4-x1")
                .containsEntry("HOST_ROOT", "/host");
    }

    @Test
    void theDaemonMountsTheMpsRootReadWriteAndThePluginReadOnlyAtTheSamePath() {
        DaemonSet ds = daemon(real);
        Volume root = volume(ds, "mps-root");
        assertThat(root.getHostPath().getPath()).isEqualTo("/run/nvidia/mps");
        assertThat(root.getHostPath().getType()).isEqualTo("DirectoryOrCreate");
        VolumeMount m = mount(ds, "mps-root");
        assertThat(m.getMountPath()).isEqualTo("/run/nvidia/mps");
        assertThat(m.getReadOnly()).isNull();
        assertThat(mount(ds, "run-nvidia-validations").getMountPath())
                .isEqualTo("/run/nvidia/validations");
        // the managed driver's library, as for the plugin
        assertThat(volume(ds, "run-nvidia").getHostPath().getPath()).isEqualTo("/run/nvidia");
        assertThat(mount(ds, "run-nvidia").getMountPath()).isEqualTo("/run/nvidia");
        assertThat(mount(ds, "run-nvidia").getReadOnly()).isTrue();
        assertThat(ds.getSpec().getTemplate().getSpec().getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .containsExactlyInAnyOrder(
                        "/run/nvidia/mps", "/run/nvidia/validations", "/run/nvidia");

        DaemonSet dp = plugin(real);
        assertThat(volume(dp, "mps-root").getHostPath().getPath()).isEqualTo("/run/nvidia/mps");
        assertThat(mount(dp, "mps-root").getMountPath()).isEqualTo("/run/nvidia/mps");
        assertThat(mount(dp, "mps-root").getReadOnly()).isTrue();
        assertThat(env(container(dp))).containsEntry("MPS_ROOT", "/run/nvidia/mps");

        // simulation: the simulated GPUs' state read-only, as the other GPU readers
        DaemonSet sim = daemon(simulated);
        assertThat(volume(sim, "simulated-gpu").getHostPath().getPath())
                .isEqualTo("/run/nvidia/simulated-gpu");
        assertThat(mount(sim, "simulated-gpu").getMountPath())
                .isEqualTo("/host/run/nvidia/simulated-gpu");
        assertThat(mount(sim, "simulated-gpu").getReadOnly()).isTrue();
        assertThat(mount(sim, "mps-root").getMountPath()).isEqualTo("/run/nvidia/mps");
    }

    @Test
    void aCustomMpsRootFromTheSpecMovesBothMountsAndBothEnvs() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        DevicePluginSpec dp = new DevicePluginSpec();
        MpsSpec mps = new MpsSpec();
        mps.setRoot("/var/run/mps/");
        dp.setMps(mps);
        spec.setDevicePlugin(dp);
        PolicySettings fromSpec = ClusterPolicySettings.from(ClusterPolicyDefaults.effective(spec));
        assertThat(fromSpec.mpsRoot()).isEqualTo("/var/run/mps");
        assertThat(
                        ClusterPolicySettings.from(
                                        ClusterPolicyDefaults.effective(new ClusterPolicySpec()))
                                .mpsRoot())
                .isEqualTo("/run/nvidia/mps");

        PolicySettings custom = real.toBuilder().mpsRoot("/var/run/mps").build();
        for (DaemonSet ds : List.of(daemon(custom), plugin(custom))) {
            String name = ds.getMetadata().getName();
            assertThat(volume(ds, "mps-root").getHostPath().getPath())
                    .as(name)
                    .isEqualTo("/var/run/mps");
            assertThat(mount(ds, "mps-root").getMountPath()).as(name).isEqualTo("/var/run/mps");
            assertThat(env(container(ds))).as(name).containsEntry("MPS_ROOT", "/var/run/mps");
        }
        assertThat(mount(daemon(custom), "mps-root").getReadOnly()).isNull();
        assertThat(mount(plugin(custom), "mps-root").getReadOnly()).isTrue();
        assertThat(OperandModels.hostMounts(custom, Operand.DEVICE_PLUGIN, NAME))
                .extracting(HostMount::hostPath)
                .contains("/var/run/mps")
                .doesNotContain("/run/nvidia/mps");
    }

    @Test
    void theDaemonReadsTheNamedConfigsAsThePluginDoesWithThePluginsNodeWatch() {
        PolicySettings configured =
                real.withPluginConfig(new PolicySettings.PluginConfig("plugin-configs", "mps-4"));
        DaemonSet ds = daemon(configured);
        assertThat(volume(ds, "available-configs").getConfigMap().getName())
                .isEqualTo("plugin-configs");
        assertThat(mount(ds, "available-configs").getMountPath()).isEqualTo("/available-configs");
        assertThat(mount(ds, "available-configs").getReadOnly()).isTrue();
        assertThat(env(container(ds)))
                .containsEntry("CONFIG_FILE_SRCDIR", "/available-configs")
                .containsEntry("DEFAULT_CONFIG", "mps-4");
        // the plugin's service account gets its node watch (and a token) with a config
        List<HasMetadata> objects = renderer.render(configured, Operand.DEVICE_PLUGIN, NS);
        assertThat(objects)
                .filteredOn(ServiceAccount.class::isInstance)
                .singleElement()
                .satisfies(
                        sa ->
                                assertThat(((ServiceAccount) sa).getAutomountServiceAccountToken())
                                        .isTrue());
        assertThat(objects)
                .filteredOn(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class::isInstance)
                .singleElement()
                .satisfies(
                        r ->
                                assertThat(
                                                ((io.fabric8.kubernetes.api.model.rbac.ClusterRole)
                                                                r)
                                                        .getRules()
                                                        .getFirst()
                                                        .getVerbs())
                                        .contains("get", "list", "watch"));
    }

    @Test
    void disablingTheDevicePluginDeletesTheDaemonFirst() {
        assertThat(OperandModels.objectRefs(Operand.DEVICE_PLUGIN, NS))
                .contains(new ObjectRef(DaemonSet.class, NS, NAME));
        assertThat(OperandModels.companionDaemonSets(Operand.DEVICE_PLUGIN)).containsExactly(NAME);
        for (Operand o : Operand.values()) {
            if (o != Operand.DEVICE_PLUGIN) {
                assertThat(OperandModels.companionDaemonSets(o)).as(o.id()).isEmpty();
            }
        }

        PolicySettings off =
                simulated.withOperand(
                        Operand.DEVICE_PLUGIN,
                        simulated.operand(Operand.DEVICE_PLUGIN).withEnabled(false));
        DesiredState desired = DesiredState.of(renderer, off, NS);
        List<ObjectRef> gone = desired.toDelete();
        ObjectRef daemon = new ObjectRef(DaemonSet.class, NS, NAME);
        ObjectRef plugin = new ObjectRef(DaemonSet.class, NS, "nvidia-device-plugin-daemonset");
        ObjectRef account = new ObjectRef(ServiceAccount.class, NS, "nvidia-device-plugin");
        assertThat(gone).contains(daemon, plugin, account);
        assertThat(gone.indexOf(daemon)).isLessThan(gone.indexOf(account));
        assertThat(desired.toApply()).noneMatch(o -> o.getMetadata().getName().equals(NAME));

        DesiredState on = DesiredState.of(renderer, simulated, NS);
        assertThat(on.toApply())
                .filteredOn(o -> o.getMetadata().getName().equals(NAME))
                .singleElement()
                .isInstanceOf(DaemonSet.class);
        assertThat(on.toDelete()).doesNotContain(daemon);
        // the device plugin's status follows its own DaemonSet's template, not the daemon's
        assertThat(on.templateHashes().get(Operand.DEVICE_PLUGIN))
                .isEqualTo(
                        plugin(simulated)
                                .getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(PodContract.TEMPLATE_HASH_ANNOTATION));
    }

    @Test
    void theDaemonsPodsNeverCountAsTheDevicePluginsPod() {
        DaemonSet ds = daemon(simulated);
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(NAME + "-abcde")
                        .withNamespace(NS)
                        .withLabels(ds.getSpec().getTemplate().getMetadata().getLabels())
                        .withAnnotations(ds.getSpec().getTemplate().getMetadata().getAnnotations())
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("gpu-1")
                        .endSpec()
                        .withNewStatus()
                        .addNewCondition()
                        .withType("Ready")
                        .withStatus("True")
                        .endCondition()
                        .endStatus()
                        .build();
        assertThat(OperandPods.onNode(List.of(pod))).isEmpty();
    }
}
