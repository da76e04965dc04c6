package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * What a pod needs to reach NVML without asking the device plugin for a GPU, as upstream's device
 * plugin, feature discovery and exporter pods do: the {@code nvidia} runtime class (set by {@link
 * DaemonSetSkeleton}), {@code NVIDIA_VISIBLE_DEVICES=all} with the driver capabilities the agent
 * needs (the runtime then injects every GPU and {@code libnvidia-ml.so.1}), {@code
 * NVIDIA_MIG_MONITOR_DEVICES=all}, the policy's MIG strategy, and the driver root.
 *
 * <p>The driver root: a managed driver is exposed by the driver agent at {@code
 * /run/nvidia/driver}, a bind mount that appears after the pod may have started. So {@code
 * /run/nvidia} is mounted read-only with {@code HostToContainer} propagation at {@code
 * <host-root>/run/nvidia}, where node-agent-lib's NVML library search looks second ({@code
 * <host-root>/run/nvidia/driver/usr/lib/...}). A host driver needs no mount: its library is the one
 * the runtime injects, found through the dynamic loader, the search's last step.
 */
final class NvmlAccess {

    /** Where the driver agent exposes a managed driver's root on the host. */
    static final String DRIVER_ROOT = "/run/nvidia/driver";

    /** What upstream's device plugin DaemonSet asks the runtime for. */
    static final String COMPUTE_UTILITY = "compute,utility";

    /** Feature discovery and the exporter: upstream's pods ask for every capability. */
    static final String ALL_CAPABILITIES = "all";

    private NvmlAccess() {}

    /**
     * The env of an NVML agent, with {@code MIG_STRATEGY} (the policy's {@code spec.mig.strategy}):
     * the device plugin advertises by it, feature discovery labels by it and the exporter maps pods
     * to GPUs and MIG devices by it.
     */
    static List<EnvVar> env(PolicySettings policy, String capabilities) {
        List<EnvVar> env = new ArrayList<>();
        env.add(OperandModel.env("NVIDIA_VISIBLE_DEVICES", "all"));
        env.add(OperandModel.env("NVIDIA_DRIVER_CAPABILITIES", capabilities));
        env.add(OperandModel.env("NVIDIA_MIG_MONITOR_DEVICES", "all"));
        String strategy = policy.migStrategy();
        if (strategy != null && !strategy.isBlank()) {
            env.add(OperandModel.env("MIG_STRATEGY", strategy));
        }
        return env;
    }

    /**
     * The driver-root mount for a managed driver (none for a host driver), under the host root the
     * agent gets ({@code /} when it gets none).
     */
    static List<HostMount> driverRootMounts(PolicySettings policy, String hostRootInContainer) {
        if (!policy.enabled(Operand.DRIVER)) {
            return List.of();
        }
        String prefix = "/".equals(hostRootInContainer) ? "" : hostRootInContainer;
        return List.of(
                new HostMount(
                        "run-nvidia",
                        "/run/nvidia",
                        prefix + "/run/nvidia",
                        "DirectoryOrCreate",
                        true,
                        "HostToContainer",
                        "libnvidia-ml.so.1 of the managed driver under "
                                + DRIVER_ROOT
                                + ", which the driver agent mounts after this pod may have started"));
    }
}
