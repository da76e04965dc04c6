package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.CapabilitiesBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.util.List;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The container toolkit agent: adds the nvidia runtime to the container runtime's config and
 * reloads it.
 */
final class ToolkitModel extends OperandModel {

    /** The toolkit agent's default --state-dir (a host path, read under HOST_ROOT). */
    static final String STATE_DIR = "/var/lib/toolkit-agent";

    ToolkitModel() {
        super(Operand.CONTAINER_TOOLKIT);
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.underHostRoot(
                        "containerd-config",
                        "/etc/containerd",
                        "DirectoryOrCreate",
                        false,
                        "adds the nvidia runtime to the containerd config"),
                HostMount.underHostRoot(
                        "containerd-socket",
                        "/run/containerd",
                        "DirectoryOrCreate",
                        false,
                        "talks to containerd to reload its config"),
                HostMount.underHostRoot(
                        "toolkit-install",
                        policy.toolkitInstallDir(),
                        "DirectoryOrCreate",
                        false,
                        "installs the nvidia-container-runtime binaries"),
                HostMount.underHostRoot(
                        "toolkit-state",
                        STATE_DIR,
                        "DirectoryOrCreate",
                        false,
                        "backups of the original runtime config: they must outlive the pod, so that "
                                + "uninstall restores the exact bytes after any number of pod restarts"),
                HostMount.validations());
    }

    /**
     * Root-owned runtime config files (kept owner and mode) and a signal to the runtime process.
     */
    @Override
    SecurityContext securityContext() {
        return rootWithoutCapabilities()
                .withCapabilities(
                        new CapabilitiesBuilder()
                                .withDrop("ALL")
                                .withAdd("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL")
                                .build())
                .build();
    }

    @Override
    boolean readsHostRoot() {
        return true;
    }

    @Override
    boolean hostPid() {
        return true;
    }

    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        return List.of(env("CONTAINERD_RUNTIME_CLASS", policy.runtimeClass()));
    }
}
