package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
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

    /** spec.driver.version, when it names a driver, as the agent's --driver-version. */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        String version = policy.nodeReadiness().driverVersion();
        return version == null ? List.of() : List.of(env("DRIVER_VERSION", version));
    }

    /** Always OnDelete: replacing a driver pod unloads kernel modules under running workloads. */
    @Override
    DaemonSetUpdateStrategy updateStrategy(DaemonSetSettings common) {
        return onDelete();
    }
}
