package org.gpuoperator.migmanager.reconcile;

import java.util.List;
import java.util.Map;

/** Upstream's node labels of the MIG manager, and the GPU clients it pauses. */
public final class MigLabels {

    private MigLabels() {}

    /**
     * The named layout an admin asks for ({@code kubectl label node ... nvidia.com/mig.config=}).
     */
    public static final String CONFIG = "nvidia.com/mig.config";

    /** {@code pending}, {@code rebooting}, {@code success} or {@code failed}. */
    public static final String STATE = "nvidia.com/mig.config.state";

    /**
     * Why the last change failed (absent after a success): upstream reports only {@code failed},
     * and admins are left to read the pod's log.
     */
    public static final String ERROR_ANNOTATION = "nvidia.com/mig.config.error";

    public static final String PENDING = "pending";
    public static final String SUCCESS = "success";
    public static final String FAILED = "failed";

    /** A GPU needs a reset to change MIG mode, and a reboot was asked for ({@code WITH_REBOOT}). */
    public static final String REBOOTING = "rebooting";

    /** The value a paused client's deploy label carries while the layout changes (upstream's). */
    public static final String PAUSED = "paused-for-mig-change";

    /**
     * The GPU clients: deploy label → the {@code app} label of its pods. Paused (their pods leave
     * the node) while the layout changes, since each holds the GPUs open through NVML or advertises
     * devices that are about to vanish.
     */
    public static final Map<String, String> CLIENTS =
            Map.of(
                    "nvidia.com/gpu.deploy.device-plugin", "nvidia-device-plugin-daemonset",
                    "nvidia.com/gpu.deploy.gpu-feature-discovery", "gpu-feature-discovery",
                    "nvidia.com/gpu.deploy.dcgm-exporter", "nvidia-dcgm-exporter",
                    "nvidia.com/gpu.deploy.dcgm", "nvidia-dcgm",
                    "nvidia.com/gpu.deploy.operator-validator", "nvidia-operator-validator");

    /** The {@code app} labels of the clients' pods. */
    public static List<String> clientApps() {
        return CLIENTS.values().stream().sorted().toList();
    }
}
