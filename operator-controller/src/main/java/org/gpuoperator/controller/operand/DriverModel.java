package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/** The driver agent: loads the kernel modules, or detects a driver already on the host. */
final class DriverModel extends OperandModel {

    DriverModel() {
        super(Operand.DRIVER);
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                new HostMount(
                        "host-root",
                        "/",
                        PodContract.HOST_ROOT,
                        "Directory",
                        false,
                        "HostToContainer",
                        "kernel modules, /proc/driver/nvidia, device nodes and host driver detection"),
                new HostMount(
                        "run-nvidia",
                        "/run/nvidia",
                        "/run/nvidia",
                        "DirectoryOrCreate",
                        false,
                        "Bidirectional",
                        "exposes the driver root /run/nvidia/driver and the readiness files"));
    }

    /** Loads kernel modules and creates device nodes. */
    @Override
    SecurityContext securityContext() {
        return new SecurityContextBuilder().withPrivileged(true).build();
    }

    @Override
    boolean readsHostRoot() {
        return true;
    }

    /**
     * spec.driver.version, when it names a driver, as the agent's --driver-version; a
     * kernelModuleType other than {@code auto} (the agent's default, left out so that the template
     * of existing policies does not change) as its --kernel-module-type.
     */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>();
        String version = policy.nodeReadiness().driverVersion();
        if (version != null) {
            env.add(env("DRIVER_VERSION", version));
        }
        String type = policy.nodeReadiness().kernelModuleType();
        if (!"auto".equals(type)) {
            env.add(env(KERNEL_MODULE_TYPE, type));
        }
        return List.copyOf(env);
    }

    /** The driver agent's env for spec.driver.kernelModuleType. */
    static final String KERNEL_MODULE_TYPE = "KERNEL_MODULE_TYPE";

    /** Always OnDelete: replacing a driver pod unloads kernel modules under running workloads. */
    @Override
    DaemonSetUpdateStrategy updateStrategy(DaemonSetSettings common) {
        return onDelete();
    }
}
