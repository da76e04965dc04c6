package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OperandModelsTest {

    private final OperandModels renderer = new OperandModels(Map.of());
    private final PolicySettings policy = TestPolicies.allEnabled();

    private DaemonSet ds(PolicySettings p, Operand o) {
        return renderer.render(p, o, "gpu-operator").stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    private static Map<String, EnvVar> env(Container c) {
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e, (a, b) -> b));
    }

    @ParameterizedTest
    @EnumSource(Operand.class)
    void podTemplateFollowsTheAgentContract(Operand operand) {
        DaemonSet ds = ds(policy, operand);
        assertThat(ds.getMetadata().getName()).isEqualTo(operand.daemonSetName());
        assertThat(ds.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        var template = ds.getSpec().getTemplate();
        assertThat(template.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/name", operand.module());
        assertThat(template.getMetadata().getLabels())
                .containsAllEntriesOf(ds.getSpec().getSelector().getMatchLabels());
        assertThat(template.getSpec().getNodeSelector())
                .containsExactly(Map.entry(operand.deployLabel(), "true"));
        assertThat(template.getSpec().getContainers()).hasSize(1);
        Container c = template.getSpec().getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo("ghcr.io/gpu-operator/" + operand.module() + ":0.1.0");
        Map<String, EnvVar> env = env(c);
        assertThat(env.get("NODE_NAME").getValueFrom().getFieldRef().getFieldPath())
                .isEqualTo("spec.nodeName");
        assertThat(env.get("GPU_SOURCE").getValue()).isEqualTo("simulated:t4-x1");
        assertThat(env.get("VALIDATIONS_DIR").getValue()).isEqualTo("/run/nvidia/validations");
        if (operand == Operand.DCGM_EXPORTER) {
            assertThat(c.getPorts())
                    .anySatisfy(
                            p -> {
                                assertThat(p.getName()).isEqualTo("metrics");
                                assertThat(p.getContainerPort()).isEqualTo(9400);
                            });
            assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
        } else {
            assertThat(env.get("HEALTH_ADDRESS").getValue()).isEqualTo(":8081");
            assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
            assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal())
                    .isEqualTo("health");
            assertThat(c.getPorts().getFirst().getContainerPort()).isEqualTo(8081);
        }
        // the kubelet probes as the container starts, before the JVM serves: the next probe, a
        // period later, is when the node's next step may begin
        assertThat(c.getReadinessProbe().getPeriodSeconds()).isEqualTo(1);
        assertThat(c.getReadinessProbe().getFailureThreshold()).isEqualTo(10);
        // simulated policy: every agent reads its host root (the GPU agents for injected faults)
        assertThat(env.get("HOST_ROOT").getValue()).isEqualTo("/host");
        assertThat(template.getSpec().getTolerations())
                .extracting(Toleration::getKey)
                .contains("nvidia.com/gpu");
        assertThat(template.getSpec().getPriorityClassName()).isEqualTo("system-node-critical");
    }

    @Test
    void onlyTheDriverTheValidatorAndTheMigManagerArePrivilegedAndOnlyTheToolkitSharesTheHostPid() {
        for (Operand o : Operand.values()) {
            var spec = ds(policy, o).getSpec().getTemplate().getSpec();
            Boolean privileged =
                    spec.getContainers().getFirst().getSecurityContext().getPrivileged();
            assertThat(Boolean.TRUE.equals(privileged))
                    .as(o.id())
                    .isEqualTo(
                            o == Operand.DRIVER
                                    || o == Operand.VALIDATOR
                                    || o == Operand.MIG_MANAGER);
            assertThat(Boolean.TRUE.equals(spec.getHostPID()))
                    .as(o.id())
                    .isEqualTo(o == Operand.CONTAINER_TOOLKIT);
        }
    }

    @Test
    void everyNodeAgentRunsAsRootToWriteItsReadinessFileAndOnlyThePrivilegedKeepCapabilities() {
        // /run/nvidia/validations is root-owned on the host: an agent under any other uid cannot
        // say it is ready
        // (found when the simulated cluster ran the pods as containers with the image's own user)
        for (Operand o : Operand.values()) {
            var sc =
                    ds(policy, o)
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getContainers()
                            .getFirst()
                            .getSecurityContext();
            if (o != Operand.DRIVER && o != Operand.VALIDATOR && o != Operand.MIG_MANAGER) {
                assertThat(sc.getRunAsUser()).as(o.id()).isEqualTo(0L);
                assertThat(sc.getCapabilities().getDrop()).as(o.id()).containsExactly("ALL");
            }
        }
    }

    @Test
    void hostPathsFollowTheKubeletRootAndOnlyWhereNeeded() {
        PolicySettings custom =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .runtimeClass("nvidia")
                        .kubeletRootDir("/data/kubelet")
                        .toolkitInstallDir("/usr/local/nvidia")
                        .simulation(policy.simulation())
                        .build();
        var dp = ds(custom, Operand.DEVICE_PLUGIN).getSpec().getTemplate().getSpec();
        assertThat(dp.getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .containsExactlyInAnyOrder(
                        "/data/kubelet/device-plugins",
                        "/run/nvidia/validations",
                        "/run/nvidia",
                        "/run/nvidia/simulated-gpu",
                        "/run/nvidia/mps");
        assertThat(dp.getContainers().getFirst().getVolumeMounts())
                .extracting(m -> m.getMountPath())
                .contains("/var/lib/kubelet/device-plugins");
        var exporter = ds(custom, Operand.DCGM_EXPORTER).getSpec().getTemplate().getSpec();
        assertThat(exporter.getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .containsExactlyInAnyOrder(
                        "/data/kubelet/pod-resources",
                        "/data/kubelet/device-plugins",
                        "/proc",
                        "/run/nvidia/validations",
                        "/run/nvidia",
                        "/run/nvidia/simulated-gpu");
        var gfd = ds(custom, Operand.GPU_FEATURE_DISCOVERY).getSpec().getTemplate().getSpec();
        assertThat(gfd.getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .containsExactlyInAnyOrder(
                        "/sys",
                        "/run/nvidia/validations",
                        "/run/nvidia",
                        "/run/nvidia/simulated-gpu");
        assertThat(gfd.getContainers().getFirst().getVolumeMounts())
                .filteredOn(m -> m.getMountPath().equals("/host/sys"))
                .singleElement()
                .satisfies(m -> assertThat(m.getReadOnly()).isTrue());
        var driver = ds(custom, Operand.DRIVER).getSpec().getTemplate().getSpec();
        assertThat(driver.getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .contains("/", "/run/nvidia");
        // the toolkit's backups live on the host: a pod restart must not lose what uninstall
        // restores
        var toolkit = ds(custom, Operand.CONTAINER_TOOLKIT).getSpec().getTemplate().getSpec();
        assertThat(toolkit.getVolumes())
                .extracting(v -> v.getHostPath().getPath())
                .containsExactlyInAnyOrder(
                        "/",
                        "/etc/containerd",
                        "/run/containerd",
                        "/usr/local/nvidia",
                        "/var/lib/toolkit-agent",
                        "/var/run/cdi", // CDI is on by default: the toolkit writes the spec there
                        "/run/nvidia/validations");
        assertThat(toolkit.getContainers().getFirst().getVolumeMounts())
                .extracting(m -> m.getMountPath())
                .contains("/host/var/lib/toolkit-agent");
    }

    @Test
    void driverUsesOnDeleteOthersRollWithMaxUnavailable() {
        PolicySettings p =
                policy.withDaemonSets(
                        new DaemonSetSettings(
                                Map.of(), Map.of(), List.of(), null, "RollingUpdate", "25%"));
        assertThat(ds(p, Operand.DRIVER).getSpec().getUpdateStrategy().getType())
                .isEqualTo("OnDelete");
        var s = ds(p, Operand.DEVICE_PLUGIN).getSpec().getUpdateStrategy();
        assertThat(s.getType()).isEqualTo("RollingUpdate");
        assertThat(s.getRollingUpdate().getMaxUnavailable().getStrVal()).isEqualTo("25%");
        PolicySettings onDelete =
                policy.withDaemonSets(
                        new DaemonSetSettings(null, null, null, null, "OnDelete", null));
        assertThat(ds(onDelete, Operand.DEVICE_PLUGIN).getSpec().getUpdateStrategy().getType())
                .isEqualTo("OnDelete");
        assertThat(
                        ds(policy, Operand.GPU_FEATURE_DISCOVERY)
                                .getSpec()
                                .getUpdateStrategy()
                                .getRollingUpdate()
                                .getMaxUnavailable()
                                .getIntVal())
                .isEqualTo(1);
    }

    @Test
    void operandArgsEnvSecretsAndPullPolicyAreApplied() {
        OperandSettings dp =
                new OperandSettings(
                        true,
                        "nvcr.io/nvidia",
                        "k8s-device-plugin",
                        "sha256:abc",
                        "Always",
                        List.of("regcred"),
                        List.of("--fail-on-init-error=false"),
                        List.of(
                                new EnvVar("GPU_SOURCE", "nvml", null),
                                new EnvVar("FOO", "bar", null)),
                        null);
        var spec =
                ds(policy.withOperand(Operand.DEVICE_PLUGIN, dp), Operand.DEVICE_PLUGIN)
                        .getSpec()
                        .getTemplate()
                        .getSpec();
        Container c = spec.getContainers().getFirst();
        assertThat(c.getImage()).isEqualTo("nvcr.io/nvidia/k8s-device-plugin@sha256:abc");
        assertThat(c.getImagePullPolicy()).isEqualTo("Always");
        assertThat(c.getArgs()).containsExactly("--fail-on-init-error=false");
        assertThat(c.getEnv()).extracting(EnvVar::getName).endsWith("GPU_SOURCE", "FOO");
        assertThat(spec.getImagePullSecrets())
                .extracting(r -> r.getName())
                .containsExactly("regcred");
    }

    @Test
    void imagePathRules() {
        assertThat(
                        ImagePaths.resolve(
                                Operand.DRIVER,
                                "driver",
                                new OperandSettings(
                                        true,
                                        null,
                                        "registry.example/driver:1",
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        null),
                                Map.of()))
                .isEqualTo("registry.example/driver:1");
        assertThat(
                        ImagePaths.resolve(
                                Operand.DRIVER,
                                "driver",
                                new OperandSettings(
                                        true, null, null, null, null, null, null, null, null),
                                Map.of("DRIVER_IMAGE", "from/env:2")))
                .isEqualTo("from/env:2");
        assertThatThrownBy(
                        () ->
                                ImagePaths.resolve(
                                        Operand.DEVICE_PLUGIN,
                                        "devicePlugin",
                                        new OperandSettings(
                                                true, "repo", "img", null, null, null, null, null,
                                                null),
                                        Map.of()))
                .hasMessageContaining("spec.devicePlugin")
                .hasMessageContaining("DEVICE_PLUGIN_IMAGE");
    }

    @Test
    void rbacIsLeastPrivilege() {
        // the driver agent and the device plugin call no API: no role, no token
        for (Operand o :
                List.of(
                        Operand.DRIVER,
                        Operand.CONTAINER_TOOLKIT,
                        Operand.DEVICE_PLUGIN,
                        Operand.DCGM_EXPORTER)) {
            assertThat(renderer.render(policy, o, "ns"))
                    .as(o.id())
                    .noneMatch(ClusterRole.class::isInstance);
        }
        ClusterRole gfd =
                renderer.render(policy, Operand.GPU_FEATURE_DISCOVERY, "ns").stream()
                        .filter(ClusterRole.class::isInstance)
                        .map(ClusterRole.class::cast)
                        .findFirst()
                        .orElseThrow();
        assertThat(gfd.getRules())
                .allSatisfy(r -> assertThat(r.getResources()).containsExactly("nodes"));
        // what NodeLabelPatcher does: read the node, JSON-patch its labels
        assertThat(gfd.getRules().getFirst().getVerbs()).containsExactly("get", "patch");
    }

    @Test
    void templateHashChangesWithTheTemplateOnly() {
        String h1 =
                ds(policy, Operand.DEVICE_PLUGIN)
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(PodContract.TEMPLATE_HASH_ANNOTATION);
        String same =
                ds(TestPolicies.allEnabled(), Operand.DEVICE_PLUGIN)
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(PodContract.TEMPLATE_HASH_ANNOTATION);
        PolicySettings changed =
                policy.withOperand(
                        Operand.DEVICE_PLUGIN,
                        policy.operand(Operand.DEVICE_PLUGIN).withVersion("0.2.0"));
        String h2 =
                ds(changed, Operand.DEVICE_PLUGIN)
                        .getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(PodContract.TEMPLATE_HASH_ANNOTATION);
        assertThat(h1).isEqualTo(same).isNotEqualTo(h2);
    }

    @Test
    void nvmlSourceWhenSimulationIsOffAndRuntimeClassForGpuUsers() {
        PolicySettings real =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .runtimeClass("nvidia")
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        var spec = ds(real, Operand.DEVICE_PLUGIN).getSpec().getTemplate().getSpec();
        assertThat(env(spec.getContainers().getFirst()).get("GPU_SOURCE").getValue())
                .isEqualTo("nvml");
        // no simulated-GPU mount or host root for the GPU agents on real nodes; GFD still reads
        // /sys
        for (Operand o : List.of(Operand.DEVICE_PLUGIN, Operand.DCGM_EXPORTER)) {
            var ps = ds(real, o).getSpec().getTemplate().getSpec();
            assertThat(ps.getVolumes())
                    .extracting(v -> v.getHostPath().getPath())
                    .doesNotContain("/run/nvidia/simulated-gpu");
            assertThat(env(ps.getContainers().getFirst())).doesNotContainKey("HOST_ROOT");
        }
        assertThat(
                        env(ds(real, Operand.GPU_FEATURE_DISCOVERY)
                                        .getSpec()
                                        .getTemplate()
                                        .getSpec()
                                        .getContainers()
                                        .getFirst())
                                .get("HOST_ROOT")
                                .getValue())
                .isEqualTo("/host");
        assertThat(spec.getRuntimeClassName()).isEqualTo("nvidia");
        assertThat(ds(real, Operand.DRIVER).getSpec().getTemplate().getSpec().getRuntimeClassName())
                .isNull();
        List<HasMetadata> all = renderer.render(real, Operand.DRIVER, "ns");
        assertThat(all)
                .extracting(HasMetadata::getKind)
                .containsExactly("ServiceAccount", "DaemonSet");
        assertThat(renderer.runtimeClass(real).getHandler()).isEqualTo("nvidia");
    }

    /**
     * A disabled operand is deleted by these names, never rendered: they must be exactly what
     * render builds.
     */
    @ParameterizedTest
    @EnumSource(Operand.class)
    void objectRefsNameExactlyTheRenderedObjects(Operand operand) {
        for (PolicySettings p :
                List.of(
                        policy,
                        PolicySettings.builder(policy.daemonsets(), policy.operands())
                                .runtimeClass("nvidia")
                                .simulation(new PolicySettings.Simulation(false, null, null))
                                .build())) {
            // the device plugin's ClusterRole exists only with devicePlugin.config, the
            // exporter's ServiceMonitor only with serviceMonitor.enabled: named always
            PolicySettings rendered =
                    switch (operand) {
                        case DEVICE_PLUGIN ->
                                p.withPluginConfig(
                                        new PolicySettings.PluginConfig("configs", null));
                        case DCGM_EXPORTER ->
                                p.toBuilder()
                                        .exporterMonitor(
                                                new PolicySettings.ExporterMonitor(
                                                        true, null, null, false, null, null))
                                        .build();
                        default -> p;
                    };
            assertThat(OperandModels.objectRefs(operand, "ns"))
                    .containsExactlyElementsOf(
                            renderer.render(rendered, operand, "ns").stream()
                                    .map(ObjectRef::of)
                                    .toList());
        }
    }

    @ParameterizedTest
    @EnumSource(Operand.class)
    void eachOperandHasItsOwnModel(Operand operand) {
        assertThat(OperandModels.model(operand).operand()).isEqualTo(operand);
    }

    @Test
    void onlyTheExporterHasAServiceAndOnlyFeatureDiscoveryAndTheValidatorANamespaceRole() {
        for (Operand o : Operand.values()) {
            List<String> kinds =
                    OperandModels.objectRefs(o, "ns").stream().map(ObjectRef::kindName).toList();
            assertThat(kinds.contains("Service")).as(o.id()).isEqualTo(o == Operand.DCGM_EXPORTER);
            assertThat(kinds.contains("Role"))
                    .as(o.id())
                    .isEqualTo(o == Operand.GPU_FEATURE_DISCOVERY || o == Operand.VALIDATOR);
            assertThat(kinds.getLast()).isEqualTo("DaemonSet");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExportersServiceMonitorSelectsItsServiceWithThePolicysScrapeSettings() {
        List<HasMetadata> plain = renderer.render(policy, Operand.DCGM_EXPORTER, "gpu-operator");
        io.fabric8.kubernetes.api.model.Service service =
                plain.stream()
                        .filter(io.fabric8.kubernetes.api.model.Service.class::isInstance)
                        .map(io.fabric8.kubernetes.api.model.Service.class::cast)
                        .findFirst()
                        .orElseThrow();
        assertThat(plain).noneMatch(ServiceMonitor.class::isInstance);
        // upstream's label, which its ServiceMonitor and users' scrape configs select on
        assertThat(service.getMetadata().getLabels()).containsEntry("app", "nvidia-dcgm-exporter");
        assertThat(service.getSpec().getPorts().getFirst().getName()).isEqualTo("gpu-metrics");

        PolicySettings monitored =
                policy.toBuilder()
                        .exporterMonitor(
                                new PolicySettings.ExporterMonitor(
                                        true,
                                        "30s",
                                        "10s",
                                        true,
                                        Map.of("release", "kube-prometheus-stack"),
                                        List.of(
                                                Map.of(
                                                        "action",
                                                        "replace",
                                                        "sourceLabels",
                                                        List.of("__meta_kubernetes_pod_node_name"),
                                                        "targetLabel",
                                                        "instance"))))
                        .build();
        List<HasMetadata> objects =
                renderer.render(monitored, Operand.DCGM_EXPORTER, "gpu-operator");
        ServiceMonitor sm =
                objects.stream()
                        .filter(ServiceMonitor.class::isInstance)
                        .map(ServiceMonitor.class::cast)
                        .findFirst()
                        .orElseThrow();
        // before the DaemonSet, beside the Service it selects
        assertThat(objects.indexOf(sm)).isLessThan(objects.size() - 1);
        assertThat(sm.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(sm.getKind()).isEqualTo("ServiceMonitor");
        assertThat(sm.getMetadata().getName()).isEqualTo("nvidia-dcgm-exporter");
        assertThat(sm.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        assertThat(sm.getMetadata().getLabels())
                .containsEntry("release", "kube-prometheus-stack")
                .containsEntry("app", "nvidia-dcgm-exporter");
        Map<String, Object> spec = (Map<String, Object>) sm.getAdditionalProperties().get("spec");
        assertThat((Map<String, Object>) spec.get("selector"))
                .isEqualTo(Map.of("matchLabels", Map.of("app", "nvidia-dcgm-exporter")));
        assertThat(service.getMetadata().getLabels())
                .containsAllEntriesOf(
                        (Map<String, String>)
                                ((Map<String, Object>) spec.get("selector")).get("matchLabels"));
        assertThat(spec.get("namespaceSelector"))
                .isEqualTo(Map.of("matchNames", List.of("gpu-operator")));
        Map<String, Object> endpoint =
                ((List<Map<String, Object>>) spec.get("endpoints")).getFirst();
        assertThat(endpoint)
                .containsEntry("port", "gpu-metrics")
                .containsEntry("path", "/metrics")
                .containsEntry("interval", "30s")
                .containsEntry("scrapeTimeout", "10s")
                .containsEntry("honorLabels", true);
        assertThat((List<Map<String, Object>>) endpoint.get("relabelings"))
                .singleElement()
                .satisfies(r -> assertThat(r).containsEntry("targetLabel", "instance"));
        // with the exporter on and the monitor off, the ServiceMonitor goes
        assertThat(OperandModels.unwantedMonitors(policy, "gpu-operator"))
                .containsExactly(
                        new ObjectRef(
                                ServiceMonitor.class, "gpu-operator", "nvidia-dcgm-exporter"));
        assertThat(OperandModels.unwantedMonitors(monitored, "gpu-operator")).isEmpty();
    }

    @Test
    void migStrategyForThePluginFeatureDiscoveryAndExporterAndRuntimeClassOnlyForTheToolkit() {
        for (Operand o : Operand.values()) {
            Map<String, EnvVar> env =
                    env(ds(policy, o).getSpec().getTemplate().getSpec().getContainers().getFirst());
            assertThat(env.containsKey("MIG_STRATEGY"))
                    .as(o.id())
                    .isEqualTo(
                            o == Operand.GPU_FEATURE_DISCOVERY
                                    || o == Operand.DEVICE_PLUGIN
                                    || o == Operand.DCGM_EXPORTER);
            assertThat(env.containsKey("CONTAINERD_RUNTIME_CLASS"))
                    .as(o.id())
                    .isEqualTo(o == Operand.CONTAINER_TOOLKIT);
        }
        PolicySettings noMig =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .runtimeClass("nvidia")
                        .migStrategy(" ")
                        .simulation(policy.simulation())
                        .build();
        assertThat(
                        env(
                                ds(noMig, Operand.GPU_FEATURE_DISCOVERY)
                                        .getSpec()
                                        .getTemplate()
                                        .getSpec()
                                        .getContainers()
                                        .getFirst()))
                .doesNotContainKey("MIG_STRATEGY");
    }

    /**
     * Per-pod usage on shared GPUs needs the host's /proc (GPU processes by host PID) and the
     * kubelet's device checkpoint: both read-only, and the exporter told where, on a real node and
     * in simulation alike; no hostPID.
     */
    @Test
    void theExporterReadsTheHostProcAndTheDeviceCheckpointReadOnlyWithoutHostPid() {
        PolicySettings real =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .runtimeClass("nvidia")
                        .kubeletRootDir("/data/kubelet")
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        for (PolicySettings p : List.of(real, policy)) {
            var spec = ds(p, Operand.DCGM_EXPORTER).getSpec().getTemplate().getSpec();
            var c = spec.getContainers().getFirst();
            Map<String, String> hostPathOf =
                    spec.getVolumes().stream()
                            .collect(
                                    Collectors.toMap(
                                            v -> v.getName(), v -> v.getHostPath().getPath()));
            Map<String, String> readOnlyAt =
                    c.getVolumeMounts().stream()
                            .filter(m -> Boolean.TRUE.equals(m.getReadOnly()))
                            .collect(
                                    Collectors.toMap(
                                            m -> hostPathOf.get(m.getName()),
                                            m -> m.getMountPath()));
            String kubeletRoot = p == real ? "/data/kubelet" : "/var/lib/kubelet";
            assertThat(readOnlyAt)
                    .containsEntry("/proc", "/host/proc")
                    .containsEntry(
                            kubeletRoot + "/device-plugins", "/var/lib/kubelet/device-plugins");
            Map<String, EnvVar> env = env(c);
            assertThat(env.get("DCGM_EXPORTER_HOST_PROC").getValue()).isEqualTo("/host/proc");
            assertThat(env.get("DCGM_EXPORTER_KUBELET_DEVICE_CHECKPOINT").getValue())
                    .isEqualTo("/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint");
            assertThat(spec.getHostPID()).isNull();
        }
    }

    @Test
    void theNvmlAgentsReachNvmlAsUpstreamsPodsDo() {
        PolicySettings real =
                PolicySettings.builder(policy.daemonsets(), policy.operands())
                        .runtimeClass("custom-nvidia")
                        .migStrategy("mixed")
                        .simulation(new PolicySettings.Simulation(false, null, null))
                        .build();
        Map<Operand, String> capabilities =
                Map.of(
                        Operand.DEVICE_PLUGIN, "compute,utility",
                        Operand.GPU_FEATURE_DISCOVERY, "all",
                        Operand.DCGM_EXPORTER, "all");
        Map<Operand, String> driverRootAt =
                Map.of(
                        Operand.DEVICE_PLUGIN, "/run/nvidia",
                        Operand.GPU_FEATURE_DISCOVERY, "/host/run/nvidia",
                        Operand.DCGM_EXPORTER, "/run/nvidia");
        for (Operand o : capabilities.keySet()) {
            var spec = ds(real, o).getSpec().getTemplate().getSpec();
            var c = spec.getContainers().getFirst();
            Map<String, EnvVar> env = env(c);
            assertThat(spec.getRuntimeClassName()).as(o.id()).isEqualTo("custom-nvidia");
            assertThat(env.get("NVIDIA_VISIBLE_DEVICES").getValue()).isEqualTo("all");
            assertThat(env.get("NVIDIA_MIG_MONITOR_DEVICES").getValue()).isEqualTo("all");
            assertThat(env.get("NVIDIA_DRIVER_CAPABILITIES").getValue())
                    .as(o.id())
                    .isEqualTo(capabilities.get(o));
            var volume =
                    spec.getVolumes().stream()
                            .filter(v -> v.getName().equals("run-nvidia"))
                            .findFirst()
                            .orElseThrow();
            assertThat(volume.getHostPath().getPath()).isEqualTo("/run/nvidia");
            var mount =
                    c.getVolumeMounts().stream()
                            .filter(m -> m.getName().equals("run-nvidia"))
                            .findFirst()
                            .orElseThrow();
            // the NVML library search looks in <host-root>/run/nvidia/driver/usr/lib/...
            assertThat(mount.getMountPath()).as(o.id()).isEqualTo(driverRootAt.get(o));
            assertThat(mount.getReadOnly()).isTrue();
            assertThat(mount.getMountPropagation()).isEqualTo("HostToContainer");
            assertThat(env.get("MIG_STRATEGY").getValue()).as(o.id()).isEqualTo("mixed");
        }
        // a host driver: the runtime injects its library; no driver-root mount
        PolicySettings hostDriver =
                real.withOperand(Operand.DRIVER, real.operand(Operand.DRIVER).withEnabled(false));
        assertThat(
                        ds(hostDriver, Operand.DEVICE_PLUGIN)
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getVolumes())
                .extracting(v -> v.getName())
                .doesNotContain("run-nvidia");
        // the simulated cluster runs the same pods under the simulated nvidia runtime
        assertThat(ds(policy, Operand.DEVICE_PLUGIN).getSpec().getTemplate().getSpec())
                .extracting(s -> s.getRuntimeClassName())
                .isEqualTo("nvidia");
    }

    @Test
    void theMigManagerMountsTheMigPartedConfigAndWritesTheSimulatedGpuState() {
        List<HasMetadata> objects = renderer.render(policy, Operand.MIG_MANAGER, "gpu-operator");
        ConfigMap layouts =
                objects.stream()
                        .filter(ConfigMap.class::isInstance)
                        .map(ConfigMap.class::cast)
                        .findFirst()
                        .orElseThrow();
        assertThat(layouts.getMetadata().getName()).isEqualTo("default-mig-parted-config");
        assertThat(layouts.getData().get("config.yaml"))
                .contains("version: v1", "all-disabled:", "all-1g.5gb:", "all-balanced:");
        var pod = ds(policy, Operand.MIG_MANAGER).getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes())
                .filteredOn(v -> v.getConfigMap() != null)
                .singleElement()
                .satisfies(
                        v ->
                                assertThat(v.getConfigMap().getName())
                                        .isEqualTo("default-mig-parted-config"));
        Container c = pod.getContainers().getFirst();
        assertThat(c.getVolumeMounts())
                .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/mig-parted-config"))
                .anySatisfy(
                        m -> {
                            // the simulated GPUs' layouts are its to write; the others only read
                            assertThat(m.getMountPath())
                                    .isEqualTo("/host/run/nvidia/simulated-gpu");
                            assertThat(m.getReadOnly()).isNull();
                        });
        Map<String, EnvVar> env = env(c);
        assertThat(env.get("CONFIG_FILE").getValue()).isEqualTo("/mig-parted-config/config.yaml");
        assertThat(env.get("NVIDIA_MIG_CONFIG_DEVICES").getValue()).isEqualTo("all");
        assertThat(env.get("CDI_ENABLED").getValue()).isEqualTo("true");
        assertThat(c.getVolumeMounts())
                .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/run/nvidia/validations"));
        assertThat(env).doesNotContainKey("DEFAULT_MIG_CONFIG").doesNotContainKey("MIG_STRATEGY");
        assertThat(
                        ds(policy, Operand.DEVICE_PLUGIN)
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getContainers()
                                .getFirst()
                                .getVolumeMounts())
                .filteredOn(m -> m.getMountPath().equals("/host/run/nvidia/simulated-gpu"))
                .singleElement()
                .satisfies(m -> assertThat(m.getReadOnly()).isTrue());

        // the user's own ConfigMap and default layout: ours is not rendered
        PolicySettings own =
                policy.toBuilder()
                        .migLayouts(new PolicySettings.MigLayouts("my-layouts", "all-disabled"))
                        .build();
        assertThat(renderer.render(own, Operand.MIG_MANAGER, "gpu-operator"))
                .noneMatch(ConfigMap.class::isInstance);
        Container mine =
                ds(own, Operand.MIG_MANAGER)
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst();
        assertThat(env(mine).get("DEFAULT_MIG_CONFIG").getValue()).isEqualTo("all-disabled");
        assertThat(ds(own, Operand.MIG_MANAGER).getSpec().getTemplate().getSpec().getVolumes())
                .filteredOn(v -> v.getConfigMap() != null)
                .singleElement()
                .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo("my-layouts"));
    }
}
