package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection.ContainerRuntime;
import org.gpuoperator.controller.operand.ToolkitModel.RuntimePaths;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The operator validator: checks driver, toolkit, cuda and plugin on its node in that order, writes
 * the readiness file of a layer whose operand is disabled, and reports on its Node.
 */
final class ValidatorModel extends OperandModel {

    /** Docker serves no CRI; Kubernetes reaches it through cri-dockerd, at its default socket. */
    static final String CRI_DOCKERD_SOCKET = "/var/run/cri-dockerd.sock";

    static final int VALIDATOR_METRICS_PORT = 8000;

    /** Validation steps whose {@code validator.<step>.env} the pod gets, in check order. */
    static final List<String> STEPS = List.of("driver", "toolkit", "cuda", "plugin");

    ValidatorModel() {
        super(Operand.VALIDATOR);
    }

    /** Upstream's container name (the validator contract). */
    @Override
    String containerName() {
        return operand().daemonSetName();
    }

    /** Reports its state in its Node's annotations. */
    @Override
    List<PolicyRule> clusterRules() {
        return List.of(rule("", "nodes", "get", "patch"));
    }

    /** The cuda and plugin workload pods, and the events that explain a failed one. */
    @Override
    List<PolicyRule> namespaceRules() {
        return List.of(rule("", "pods", "create", "get", "delete"), rule("", "events", "list"));
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        List<HostMount> mounts = new ArrayList<>();
        mounts.add(
                new HostMount(
                        "host-root",
                        "/",
                        PodContract.HOST_ROOT,
                        "Directory",
                        true,
                        "HostToContainer",
                        "finds a host driver (NVML libraries, nvidia-smi) read-only"));
        mounts.add(
                new HostMount(
                        "host-dev",
                        "/dev",
                        PodContract.HOST_ROOT + "/dev",
                        "Directory",
                        false,
                        "HostToContainer",
                        "checks /dev/nvidiactl and /dev/nvidia<N>; creates the /dev/char symlinks"));
        mounts.add(
                new HostMount(
                        "run-nvidia",
                        "/run/nvidia",
                        "/run/nvidia",
                        "DirectoryOrCreate",
                        false,
                        "HostToContainer",
                        "sees the driver root /run/nvidia/driver; writes the readiness files"));
        RuntimePaths runtime = RuntimePaths.of(policy);
        String socket = criSocket(runtime);
        mounts.add(
                new HostMount(
                        runtime.runtime().agentName() + "-socket",
                        ToolkitModel.parent(socket),
                        ToolkitModel.parent(socket),
                        "DirectoryOrCreate",
                        false,
                        null,
                        "CRI Status and a container under the nvidia runtime handler"));
        if (policy.simulation().enabled()) {
            mounts.add(
                    HostMount.underHostRoot(
                            "simulated-gpu",
                            PodContract.SIMULATED_GPU_DIR,
                            "DirectoryOrCreate",
                            true,
                            "injected faults of the simulated GPUs (simulation only)"));
        }
        return mounts;
    }

    /**
     * Opens NVML on the host's device nodes without the nvidia runtime (which a disabled toolkit
     * may not have configured yet), creates /dev/char symlinks: privileged, as upstream.
     */
    @Override
    SecurityContext securityContext() {
        return new SecurityContextBuilder().withPrivileged(true).build();
    }

    @Override
    boolean readsHostRoot() {
        return true;
    }

    @Override
    List<ContainerPort> ports() {
        return List.of(
                port(),
                new ContainerPortBuilder()
                        .withName("metrics")
                        .withContainerPort(VALIDATOR_METRICS_PORT)
                        .withProtocol("TCP")
                        .build());
    }

    @Override
    List<EnvVar> operandEnv(PolicySettings policy, String image) {
        List<EnvVar> env = new ArrayList<>();
        env.add(
                new EnvVarBuilder()
                        .withName("NAMESPACE")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.namespace")
                        .endFieldRef()
                        .endValueFrom()
                        .build());
        // written beside its node report, so that a report of an earlier pod is told apart
        env.add(
                new EnvVarBuilder()
                        .withName("POD_NAME")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.name")
                        .endFieldRef()
                        .endValueFrom()
                        .build());
        env.add(env("DRIVER_MANAGED", managed(policy, Operand.DRIVER)));
        env.add(env("TOOLKIT_MANAGED", managed(policy, Operand.CONTAINER_TOOLKIT)));
        env.add(env("PLUGIN_MANAGED", managed(policy, Operand.DEVICE_PLUGIN)));
        env.add(env("RUNTIME_CLASS", policy.runtimeClass()));
        env.add(env("RUNTIME_HANDLER", policy.runtimeClass())); // the handler the toolkit registers
        env.add(env("RUNTIME_SOCKET", criSocket(RuntimePaths.of(policy))));
        env.add(env("WORKLOAD_IMAGE", image));
        env.add(env("METRICS_ADDRESS", ":" + VALIDATOR_METRICS_PORT));
        for (String step : STEPS) {
            env.addAll(policy.nodeReadiness().validatorEnv().getOrDefault(step, List.of()));
        }
        return env;
    }

    /**
     * The CRI socket of the runtime the toolkit is rendered for (detected from the nodes, or the
     * user's {@code RUNTIME}), where {@code toolkit.env} moves it (k3s, RKE2): containerd and CRI-O
     * serve CRI on their own socket, Docker through cri-dockerd.
     */
    static String criSocket(RuntimePaths runtime) {
        return runtime.runtime() == ContainerRuntime.DOCKER ? CRI_DOCKERD_SOCKET : runtime.socket();
    }

    private static String managed(PolicySettings policy, Operand operand) {
        return Boolean.toString(policy.enabled(operand));
    }
}
