package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The one DaemonSet shape every operand (and companion, {@link OperandModel#companions}) shares
 * (the pod template contract with the agents): one container named after the module, env NODE_NAME
 * / GPU_SOURCE / VALIDATIONS_DIR / HEALTH_ADDRESS (+ HOST_ROOT where host files are read), the
 * model's host paths, selected by the operand's deploy label. The model fills in what differs.
 */
final class DaemonSetSkeleton {

    /** The opt-in taint (nodes.StackReadiness.TAINT_KEY) every operand pod then tolerates. */
    static final String NOT_READY_TAINT = "nvidia.com/gpu-not-ready";

    private DaemonSetSkeleton() {}

    static DaemonSet build(
            OperandModel model, PolicySettings policy, String namespace, String image) {
        return build(model, policy, namespace, image, null);
    }

    /**
     * @param placement another name, labels and nodeSelector for one of several DaemonSets of the
     *     operand; null for the operand's one DaemonSet
     */
    static DaemonSet build(
            OperandModel model,
            PolicySettings policy,
            String namespace,
            String image,
            Placement placement) {
        Operand operand = model.operand();
        OperandSettings settings = policy.operand(operand);
        DaemonSetSettings common = policy.daemonsets();

        // daemonsets.labels first, never over ours; app and part-of not at all, as upstream: the
        // selectors (immutable) and users' scripts rely on them
        Map<String, String> podLabels = new LinkedHashMap<>(common.labels());
        podLabels.remove(PodContract.APP_LABEL);
        podLabels.remove(PodContract.PART_OF_LABEL);
        podLabels.putAll(OperandObjects.commonLabels(model.component()));
        podLabels.put(PodContract.APP_NAME_LABEL, model.appName());
        podLabels.put(PodContract.APP_LABEL, model.daemonSetName());
        if (operand.partOf() != null) {
            podLabels.put(PodContract.PART_OF_LABEL, operand.partOf());
        }
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(PodContract.APP_LABEL, model.daemonSetName());
        Map<String, String> nodeSelector = new LinkedHashMap<>();
        nodeSelector.put(operand.deployLabel(), "true");
        nodeSelector.putAll(model.extraNodeSelector());
        if (placement != null) {
            podLabels.putAll(placement.labels());
            selector.putAll(placement.labels());
            nodeSelector.putAll(placement.nodeSelector());
        }

        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        hostMounts(model, policy)
                .forEach(
                        m -> {
                            volumes.add(
                                    new VolumeBuilder()
                                            .withName(m.name())
                                            .withNewHostPath()
                                            .withPath(m.hostPath())
                                            .withType(m.type())
                                            .endHostPath()
                                            .build());
                            mounts.add(
                                    new VolumeMountBuilder()
                                            .withName(m.name())
                                            .withMountPath(m.containerPath())
                                            .withReadOnly(m.readOnly() ? Boolean.TRUE : null)
                                            .withMountPropagation(m.propagation())
                                            .build());
                        });

        if (model.readsPluginConfigs()) {
            volumes.addAll(PluginConfigWiring.volumes(policy));
            mounts.addAll(PluginConfigWiring.mounts(policy));
        }
        volumes.addAll(model.volumes(policy));
        mounts.addAll(model.volumeMounts(policy));

        List<EnvVar> env = env(model, policy, settings, image);
        String configDigest = null;
        if (operand == Operand.DRIVER) {
            // what changes the installed driver; labels, annotations, tolerations, resources, the
            // priority class and pull settings do not (a change of only those restarts the pod
            // in place, no eviction: PodContract.DRIVER_CONFIG_DIGEST_ENV)
            configDigest =
                    Hashing.of(
                            java.util.Arrays.asList(
                                    image,
                                    model.command(),
                                    model.args(settings),
                                    env,
                                    mounts,
                                    volumes,
                                    model.securityContext()));
            env = new ArrayList<>(env);
            env.add(new EnvVar(PodContract.DRIVER_CONFIG_DIGEST_ENV, configDigest, null));
        }
        Container container =
                new ContainerBuilder()
                        .withName(model.containerName())
                        .withImage(image)
                        .withCommand(model.command())
                        .withImagePullPolicy(blankToNull(settings.imagePullPolicy()))
                        .withArgs(model.args(settings))
                        .withEnv(env)
                        .withPorts(model.ports())
                        .withReadinessProbe(model.readiness())
                        .withResources(settings.resources())
                        .withSecurityContext(model.securityContext())
                        .withVolumeMounts(mounts)
                        .build();

        PodSpecBuilder pod =
                new PodSpecBuilder()
                        .withServiceAccountName(operand.serviceAccountName())
                        .withNodeSelector(nodeSelector)
                        .withTolerations(tolerations(policy))
                        .withPriorityClassName(blankToNull(common.priorityClassName()))
                        .withContainers(container)
                        .withVolumes(volumes);
        if (model.hostPid()) {
            pod.withHostPID(true);
        }
        if (model.usesGpuWithoutAllocation()) {
            // sees all GPUs without asking the device plugin (NvmlAccess); in simulation too, where
            // the simulated nvidia runtime serves the handler
            pod.withRuntimeClassName(policy.runtimeClass());
        }
        if (!settings.imagePullSecrets().isEmpty()) {
            pod.withImagePullSecrets(
                    settings.imagePullSecrets().stream().map(LocalObjectReference::new).toList());
        }
        PodSpec podSpec = pod.build();
        Map<String, String> podAnnotations = new LinkedHashMap<>(common.annotations());
        String templateHash = Hashing.of(List.of(podLabels, podSpec, common.annotations()));
        podAnnotations.put(
                PodContract.TEMPLATE_HASH_ANNOTATION,
                configDigest == null ? templateHash : configDigest + "-" + templateHash);
        PodTemplateSpec template =
                new PodTemplateSpecBuilder()
                        .withNewMetadata()
                        .withLabels(podLabels)
                        .withAnnotations(podAnnotations)
                        .endMetadata()
                        .withSpec(podSpec)
                        .build();

        ObjectMeta meta =
                OperandObjects.meta(
                        placement == null ? model.daemonSetName() : placement.name(),
                        namespace,
                        model.component());
        // upstream's labels of the DaemonSet itself: app (the selector's value, so that
        // `kubectl get ds -l app=<name>` finds it) and part-of
        meta.getLabels().put(PodContract.APP_LABEL, model.daemonSetName());
        if (operand.partOf() != null) {
            meta.getLabels().put(PodContract.PART_OF_LABEL, operand.partOf());
        }
        if (placement != null) {
            meta.getLabels().putAll(placement.labels());
            meta.setAnnotations(
                    placement.annotations().isEmpty()
                            ? null
                            : new LinkedHashMap<>(placement.annotations()));
        }
        return new DaemonSetBuilder()
                .withMetadata(meta)
                .withNewSpec()
                .withNewSelector()
                .withMatchLabels(selector)
                .endSelector()
                .withUpdateStrategy(model.updateStrategy(common))
                .withTemplate(template)
                .endSpec()
                .build();
    }

    /**
     * The model's host paths, plus for the GPU users the driver root ({@link NvmlAccess}) and the
     * injected-fault directory of simulated GPUs.
     */
    static List<HostMount> hostMounts(OperandModel model, PolicySettings policy) {
        List<HostMount> mounts = new ArrayList<>(model.hostMounts(policy));
        if (model.usesGpuWithoutAllocation()) {
            mounts.addAll(NvmlAccess.driverRootMounts(policy, hostRootInContainer(model, policy)));
        }
        // the driver already sees the whole host
        if (policy.simulation().enabled() && model.usesGpuWithoutAllocation()) {
            mounts.add(
                    HostMount.underHostRoot(
                            "simulated-gpu",
                            PodContract.SIMULATED_GPU_DIR,
                            "DirectoryOrCreate",
                            !model.changesGpus(),
                            model.changesGpus()
                                    ? "the simulated GPUs' MIG layouts, which it changes, and"
                                            + " their injected faults (simulation only)"
                                    : "injected faults and MIG layouts of the simulated GPUs"
                                            + " (simulation only)"));
        }
        return List.copyOf(mounts);
    }

    private static List<EnvVar> env(
            OperandModel model, PolicySettings policy, OperandSettings settings, String image) {
        List<EnvVar> env = new ArrayList<>();
        env.add(
                new EnvVarBuilder()
                        .withName("NODE_NAME")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("spec.nodeName")
                        .endFieldRef()
                        .endValueFrom()
                        .build());
        env.add(OperandModel.env("GPU_SOURCE", gpuSource(policy)));
        env.add(OperandModel.env("VALIDATIONS_DIR", PodContract.VALIDATIONS_DIR));
        if (model.servesHealthPort()) {
            env.add(OperandModel.env("HEALTH_ADDRESS", ":" + PodContract.HEALTH_PORT));
        }
        if (!"/".equals(hostRootInContainer(model, policy))) {
            env.add(OperandModel.env("HOST_ROOT", PodContract.HOST_ROOT));
        }
        env.addAll(ReadinessWiring.waitEnv(model.operand(), policy.enabledOperands()));
        env.addAll(model.operandEnv(policy, image));
        env.addAll(settings.env()); // user env last: it may override ours
        return env;
    }

    /**
     * Where the agent finds the host's files: {@link PodContract#HOST_ROOT} for the agents that
     * read host files and for simulated GPUs (their injected faults), else its own {@code /}.
     */
    static String hostRootInContainer(OperandModel model, PolicySettings policy) {
        return model.readsHostRoot()
                        || (policy.simulation().enabled() && model.usesGpuWithoutAllocation())
                ? PodContract.HOST_ROOT
                : "/";
    }

    /**
     * {@code daemonsets.tolerations}, plus the not-ready taint when the policy keeps it on GPU
     * nodes: the operands are what makes the node ready.
     */
    private static List<Toleration> tolerations(PolicySettings policy) {
        List<Toleration> tolerations = new ArrayList<>(policy.daemonsets().tolerations());
        if (policy.nodeReadiness().gpuNotReadyTaint()) {
            tolerations.add(
                    new TolerationBuilder()
                            .withKey(NOT_READY_TAINT)
                            .withOperator("Exists")
                            .withEffect("NoSchedule")
                            .build());
        }
        return tolerations.isEmpty() ? null : tolerations;
    }

    static String gpuSource(PolicySettings policy) {
        PolicySettings.Simulation sim = policy.simulation();
        return sim.enabled() ? "simulated:" + sim.profile() : "nvml";
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
