package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.CapabilitiesBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClassBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * Renders every object an operand needs, as a pure function of the policy settings. The reconcile, the
 * {@code render} command and the privilege audit all call this, so what an admin reviews is what gets applied.
 *
 * <p>Pod template contract shared with the node agents and the e2e node simulator: label
 * {@code app.kubernetes.io/name=<module>}, one main container, env NODE_NAME / GPU_SOURCE / VALIDATIONS_DIR /
 * HEALTH_ADDRESS (+ HOST_ROOT where host files are needed), readiness on {@code /readyz} port 8081.
 */
public final class OperandRenderer {

    public static final String APP_NAME_LABEL = "app.kubernetes.io/name";
    public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "gpu-operator";
    public static final String TEMPLATE_HASH_ANNOTATION = "gpuoperator.org/template-hash";
    public static final String VALIDATIONS_DIR = "/run/nvidia/validations";
    public static final String HOST_ROOT = "/host";
    /** Where simulated GPUs take injected faults from (node-agent-lib's SimulatedFaults, under the host root). */
    public static final String SIMULATED_GPU_DIR = "/run/nvidia/simulated-gpu";
    public static final int HEALTH_PORT = 8081;
    public static final int METRICS_PORT = 9400;
    static final String IN_CONTAINER_KUBELET_ROOT = "/var/lib/kubelet";
    /** The toolkit agent's default --state-dir (a host path, read under HOST_ROOT). */
    static final String TOOLKIT_STATE_DIR = "/var/lib/toolkit-agent";

    private final Map<String, String> operatorEnv;

    /** @param operatorEnv the operator's own environment, for {@code <OPERAND>_IMAGE} fallbacks */
    public OperandRenderer(Map<String, String> operatorEnv) {
        this.operatorEnv = Map.copyOf(operatorEnv);
    }

    /** RuntimeClass {@code nvidia} (name and handler from spec.operator.runtimeClass). */
    public RuntimeClass runtimeClass(PolicySettings policy) {
        return new RuntimeClassBuilder()
                .withNewMetadata().withName(policy.runtimeClass()).withLabels(commonLabels("gpu-operator")).endMetadata()
                .withHandler(policy.runtimeClass())
                .build();
    }

    /** All objects of one operand, in apply order (identity and RBAC before the DaemonSet that uses them). */
    public List<HasMetadata> render(PolicySettings policy, Operand operand, String namespace) {
        List<HasMetadata> out = new ArrayList<>();
        out.add(new ServiceAccountBuilder()
                .withMetadata(meta(operand.serviceAccountName(), namespace, operand))
                .withAutomountServiceAccountToken(!clusterRules(operand).isEmpty() || !namespaceRules(operand).isEmpty())
                .build());
        List<PolicyRule> clusterRules = clusterRules(operand);
        if (!clusterRules.isEmpty()) {
            out.add(new ClusterRoleBuilder().withMetadata(meta(operand.serviceAccountName(), null, operand))
                    .withRules(clusterRules).build());
            out.add(new ClusterRoleBindingBuilder().withMetadata(meta(operand.serviceAccountName(), null, operand))
                    .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", operand.serviceAccountName())
                    .withSubjects(new SubjectBuilder().withKind("ServiceAccount").withName(operand.serviceAccountName())
                            .withNamespace(namespace).build())
                    .build());
        }
        List<PolicyRule> namespaceRules = namespaceRules(operand);
        if (!namespaceRules.isEmpty()) {
            out.add(new RoleBuilder().withMetadata(meta(operand.serviceAccountName(), namespace, operand))
                    .withRules(namespaceRules).build());
            out.add(new RoleBindingBuilder().withMetadata(meta(operand.serviceAccountName(), namespace, operand))
                    .withNewRoleRef("rbac.authorization.k8s.io", "Role", operand.serviceAccountName())
                    .withSubjects(new SubjectBuilder().withKind("ServiceAccount").withName(operand.serviceAccountName())
                            .withNamespace(namespace).build())
                    .build());
        }
        if (operand == Operand.DCGM_EXPORTER) {
            out.add(new ServiceBuilder().withMetadata(meta(operand.daemonSetName(), namespace, operand))
                    .withNewSpec()
                    .withSelector(Map.of("app", operand.daemonSetName()))
                    .addNewPort().withName("gpu-metrics").withPort(METRICS_PORT)
                    .withTargetPort(new IntOrString("metrics")).withProtocol("TCP").endPort()
                    .endSpec().build());
        }
        out.add(daemonSet(policy, operand, namespace));
        return out;
    }

    /** Least privilege: only the agents that talk to the API server get a role, and only for what they touch. */
    static List<PolicyRule> clusterRules(Operand operand) {
        return switch (operand) {
            // reports a host driver as nvidia.com/gpu.deploy.driver=pre-installed on its own node
            case DRIVER -> List.of(rule("", "nodes", "get", "patch"));
            // reads its node's nvidia.com/device-plugin.config label
            case DEVICE_PLUGIN -> List.of(rule("", "nodes", "get"));
            // writes the nvidia.com/gpu.* labels of its own node
            case GPU_FEATURE_DISCOVERY -> List.of(rule("", "nodes", "get", "patch", "update"));
            case CONTAINER_TOOLKIT, DCGM_EXPORTER -> List.of();
        };
    }

    static List<PolicyRule> namespaceRules(Operand operand) {
        return operand == Operand.GPU_FEATURE_DISCOVERY
                // NodeFeature objects when NFD's API is installed
                ? List.of(rule("nfd.k8s-sigs.io", "nodefeatures", "get", "create", "update", "patch"))
                : List.of();
    }

    private static PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(group).withResources(resource).withVerbs(verbs).build();
    }

    DaemonSet daemonSet(PolicySettings policy, Operand operand, String namespace) {
        OperandSettings settings = policy.operand(operand);
        DaemonSetSettings common = policy.daemonsets();

        Map<String, String> podLabels = new LinkedHashMap<>(common.labels());
        podLabels.putAll(commonLabels(operand.id()));
        podLabels.put(APP_NAME_LABEL, operand.module());
        podLabels.put("app", operand.daemonSetName());

        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        hostMounts(policy, operand).forEach(m -> {
            volumes.add(new VolumeBuilder().withName(m.name())
                    .withNewHostPath().withPath(m.hostPath()).withType(m.type()).endHostPath().build());
            mounts.add(new VolumeMountBuilder().withName(m.name()).withMountPath(m.containerPath())
                    .withReadOnly(m.readOnly() ? Boolean.TRUE : null).withMountPropagation(m.propagation()).build());
        });

        Container container = new ContainerBuilder()
                .withName(operand.module())
                .withImage(ImagePaths.resolve(operand, operand.specSection(), settings, operatorEnv))
                .withImagePullPolicy(blankToNull(settings.imagePullPolicy()))
                .withArgs(settings.args().isEmpty() ? null : settings.args())
                .withEnv(env(policy, operand, settings))
                .withPorts(ports(operand))
                .withReadinessProbe(readiness(operand))
                .withResources(settings.resources())
                .withSecurityContext(securityContext(operand))
                .withVolumeMounts(mounts)
                .build();

        PodSpecBuilder pod = new PodSpecBuilder()
                .withServiceAccountName(operand.serviceAccountName())
                .withNodeSelector(Map.of(operand.deployLabel(), "true"))
                .withTolerations(common.tolerations().isEmpty() ? null : common.tolerations())
                .withPriorityClassName(blankToNull(common.priorityClassName()))
                .withContainers(container)
                .withVolumes(volumes);
        if (operand == Operand.CONTAINER_TOOLKIT) {
            pod.withHostPID(true); // signals the container runtime to reload its config
        }
        if (!policy.simulation().enabled() && usesGpuWithoutAllocation(operand)) {
            pod.withRuntimeClassName(policy.runtimeClass()); // sees all GPUs without asking the device plugin
        }
        if (!settings.imagePullSecrets().isEmpty()) {
            pod.withImagePullSecrets(settings.imagePullSecrets().stream().map(LocalObjectReference::new).toList());
        }
        PodSpec podSpec = pod.build();
        Map<String, String> podAnnotations = new LinkedHashMap<>(common.annotations());
        podAnnotations.put(TEMPLATE_HASH_ANNOTATION, Hashing.of(List.of(podLabels, podSpec, common.annotations())));
        PodTemplateSpec template = new PodTemplateSpecBuilder()
                .withNewMetadata().withLabels(podLabels).withAnnotations(podAnnotations).endMetadata()
                .withSpec(podSpec)
                .build();

        return new DaemonSetBuilder()
                .withMetadata(meta(operand.daemonSetName(), namespace, operand))
                .withNewSpec()
                .withNewSelector().withMatchLabels(Map.of("app", operand.daemonSetName())).endSelector()
                .withUpdateStrategy(updateStrategy(operand, common))
                .withTemplate(template)
                .endSpec()
                .build();
    }

    /** The driver always uses OnDelete: replacing a driver pod unloads kernel modules under running workloads. */
    static DaemonSetUpdateStrategy updateStrategy(Operand operand, DaemonSetSettings common) {
        if (operand == Operand.DRIVER || DaemonSetSettings.ON_DELETE.equals(common.updateStrategy())) {
            return new DaemonSetUpdateStrategyBuilder().withType(DaemonSetSettings.ON_DELETE).build();
        }
        return new DaemonSetUpdateStrategyBuilder().withType(DaemonSetSettings.ROLLING_UPDATE)
                .withNewRollingUpdate().withMaxUnavailable(intOrString(common.maxUnavailable())).endRollingUpdate()
                .build();
    }

    private static IntOrString intOrString(String value) {
        return value.matches("\\d+") ? new IntOrString(Integer.parseInt(value)) : new IntOrString(value);
    }

    /** One host path an operand mounts; the privilege audit lists these. */
    public record HostMount(String name, String hostPath, String containerPath, String type, boolean readOnly,
            String propagation, String why) {}

    /** Host paths per operand: only what the agent touches. */
    public static List<HostMount> hostMounts(PolicySettings policy, Operand operand) {
        List<HostMount> mounts = new ArrayList<>(operandMounts(policy, operand));
        // Simulated GPUs read injected faults from the node; the driver already sees the whole host.
        if (policy.simulation().enabled() && usesGpuWithoutAllocation(operand)) {
            mounts.add(new HostMount("simulated-gpu", SIMULATED_GPU_DIR, HOST_ROOT + SIMULATED_GPU_DIR,
                    "DirectoryOrCreate", true, null, "injected faults of the simulated GPUs (simulation only)"));
        }
        return List.copyOf(mounts);
    }

    /** Agents that read files under HOST_ROOT. */
    private static boolean readsHostRoot(PolicySettings policy, Operand operand) {
        return operand == Operand.DRIVER || operand == Operand.CONTAINER_TOOLKIT
                || operand == Operand.GPU_FEATURE_DISCOVERY
                || (policy.simulation().enabled() && usesGpuWithoutAllocation(operand));
    }

    private static List<HostMount> operandMounts(PolicySettings policy, Operand operand) {
        String kubelet = policy.kubeletRootDir();
        HostMount validations = new HostMount("run-nvidia-validations", VALIDATIONS_DIR, VALIDATIONS_DIR,
                "DirectoryOrCreate", false, null, "readiness files shared by the agents on the node");
        return switch (operand) {
            case DRIVER -> List.of(
                    new HostMount("host-root", "/", HOST_ROOT, "Directory", false, "HostToContainer",
                            "kernel modules, /proc/driver/nvidia, device nodes and host driver detection"),
                    new HostMount("run-nvidia", "/run/nvidia", "/run/nvidia", "DirectoryOrCreate", false,
                            "Bidirectional", "exposes the driver root /run/nvidia/driver and the readiness files"));
            case CONTAINER_TOOLKIT -> List.of(
                    new HostMount("containerd-config", "/etc/containerd", HOST_ROOT + "/etc/containerd",
                            "DirectoryOrCreate", false, null, "adds the nvidia runtime to the containerd config"),
                    new HostMount("containerd-socket", "/run/containerd", HOST_ROOT + "/run/containerd",
                            "DirectoryOrCreate", false, null, "talks to containerd to reload its config"),
                    new HostMount("toolkit-install", policy.toolkitInstallDir(), HOST_ROOT + policy.toolkitInstallDir(),
                            "DirectoryOrCreate", false, null, "installs the nvidia-container-runtime binaries"),
                    new HostMount("toolkit-state", TOOLKIT_STATE_DIR, HOST_ROOT + TOOLKIT_STATE_DIR, "DirectoryOrCreate",
                            false, null, "backups of the original runtime config: they must outlive the pod, so that "
                            + "uninstall restores the exact bytes after any number of pod restarts"),
                    validations);
            case DEVICE_PLUGIN -> List.of(
                    new HostMount("device-plugins", kubelet + "/device-plugins",
                            IN_CONTAINER_KUBELET_ROOT + "/device-plugins", "Directory", false, null,
                            "serves nvidia-gpu.sock and registers with the kubelet"),
                    validations);
            case GPU_FEATURE_DISCOVERY -> List.of(
                    new HostMount("host-sys", "/sys", HOST_ROOT + "/sys", "Directory", true, null,
                            "machine type (DMI product name) and GPU PCI class for the gpu.machine and gpu.mode labels"),
                    validations);
            case DCGM_EXPORTER -> List.of(
                    new HostMount("pod-resources", kubelet + "/pod-resources",
                            IN_CONTAINER_KUBELET_ROOT + "/pod-resources", "Directory", false, null,
                            "asks the kubelet which pod holds which GPU (connecting to its socket needs write access)"),
                    validations);
        };
    }

    private static boolean usesGpuWithoutAllocation(Operand operand) {
        return operand == Operand.DEVICE_PLUGIN || operand == Operand.GPU_FEATURE_DISCOVERY
                || operand == Operand.DCGM_EXPORTER;
    }

    static SecurityContext securityContext(Operand operand) {
        Capabilities dropAll = new CapabilitiesBuilder().withDrop("ALL").build();
        return switch (operand) {
            // loads kernel modules and creates device nodes
            case DRIVER -> new SecurityContextBuilder().withPrivileged(true).build();
            // root-owned runtime config files (kept owner and mode) and a signal to the runtime process
            case CONTAINER_TOOLKIT -> new SecurityContextBuilder().withPrivileged(false).withRunAsUser(0L)
                    .withAllowPrivilegeEscalation(false)
                    .withCapabilities(new CapabilitiesBuilder().withDrop("ALL")
                            .withAdd("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL").build())
                    .build();
            // root-owned kubelet socket directories, nothing more
            case DEVICE_PLUGIN, DCGM_EXPORTER -> new SecurityContextBuilder().withPrivileged(false).withRunAsUser(0L)
                    .withAllowPrivilegeEscalation(false).withCapabilities(dropAll).build();
            // root for its readiness file in the root-owned /run/nvidia/validations; nothing else of root's
            case GPU_FEATURE_DISCOVERY -> new SecurityContextBuilder().withPrivileged(false).withRunAsUser(0L)
                    .withAllowPrivilegeEscalation(false).withReadOnlyRootFilesystem(true).withCapabilities(dropAll)
                    .build();
        };
    }

    private List<EnvVar> env(PolicySettings policy, Operand operand, OperandSettings settings) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder().withName("NODE_NAME")
                .withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName").endFieldRef().endValueFrom()
                .build());
        env.add(new EnvVar("GPU_SOURCE", gpuSource(policy), null));
        env.add(new EnvVar("VALIDATIONS_DIR", VALIDATIONS_DIR, null));
        if (operand != Operand.DCGM_EXPORTER) {
            env.add(new EnvVar("HEALTH_ADDRESS", ":" + HEALTH_PORT, null));
        }
        if (readsHostRoot(policy, operand)) {
            env.add(new EnvVar("HOST_ROOT", HOST_ROOT, null));
        }
        if (operand == Operand.CONTAINER_TOOLKIT) {
            env.add(new EnvVar("CONTAINERD_RUNTIME_CLASS", policy.runtimeClass(), null));
        }
        if (operand == Operand.GPU_FEATURE_DISCOVERY && policy.migStrategy() != null && !policy.migStrategy().isBlank()) {
            env.add(new EnvVar("MIG_STRATEGY", policy.migStrategy(), null));
        }
        env.addAll(settings.env()); // user env last: it may override ours
        return env;
    }

    public static String gpuSource(PolicySettings policy) {
        PolicySettings.Simulation sim = policy.simulation();
        if (!sim.enabled()) {
            return "nvml";
        }
        return "simulated:" + sim.profile();
    }

    private static List<ContainerPort> ports(Operand operand) {
        if (operand == Operand.DCGM_EXPORTER) {
            return List.of(new ContainerPortBuilder().withName("metrics").withContainerPort(METRICS_PORT)
                    .withProtocol("TCP").build());
        }
        return List.of(new ContainerPortBuilder().withName("health").withContainerPort(HEALTH_PORT)
                .withProtocol("TCP").build());
    }

    private static Probe readiness(Operand operand) {
        boolean exporter = operand == Operand.DCGM_EXPORTER;
        return new ProbeBuilder()
                .withNewHttpGet().withPath(exporter ? "/health" : "/readyz")
                .withPort(new IntOrString(exporter ? "metrics" : "health")).endHttpGet()
                .withPeriodSeconds(5).withFailureThreshold(3)
                .build();
    }

    private static ObjectMeta meta(String name, String namespace, Operand operand) {
        return new ObjectMetaBuilder().withName(name).withNamespace(namespace)
                .withLabels(commonLabels(operand.id())).build();
    }

    private static Map<String, String> commonLabels(String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(MANAGED_BY_LABEL, MANAGED_BY);
        labels.put(COMPONENT_LABEL, component);
        return labels;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
