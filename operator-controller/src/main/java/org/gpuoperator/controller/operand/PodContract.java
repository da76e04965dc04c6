package org.gpuoperator.controller.operand;

/**
 * Names the node agents, the e2e node simulator and the status rely on: labels and annotations of
 * the operand objects, the shared host directories, and the agents' ports.
 */
public final class PodContract {

    private PodContract() {}

    public static final String APP_NAME_LABEL = "app.kubernetes.io/name";
    public static final String COMPONENT_LABEL = "app.kubernetes.io/component";
    public static final String PART_OF_LABEL = "app.kubernetes.io/part-of";
    public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "gpu-operator";

    /**
     * Selector label of each operand DaemonSet (value: the DaemonSet's name; for the DaemonSets of
     * NVIDIADriver node pools the driver's, {@code nvidia-driver-daemonset}), also on the DaemonSet
     * itself, as upstream: {@code kubectl get ds,pods -l app=<name>}.
     */
    public static final String APP_LABEL = "app";

    /**
     * The pod template's hash; the driver's is {@code <DRIVER_CONFIG_DIGEST>-<hash>}, so that the
     * upgrade can tell a pod whose driver configuration is the DaemonSet's (restart only) from the
     * template hash alone.
     */
    public static final String TEMPLATE_HASH_ANNOTATION = "gpuoperator.org/template-hash";

    /**
     * The driver container's env (upstream's name): a hash of what changes the installed driver
     * (image, command, args, env, mounts, volumes, security context).
     */
    public static final String DRIVER_CONFIG_DIGEST_ENV = "DRIVER_CONFIG_DIGEST";

    /** The configuration digest in a driver pod's template hash, or null (another operand's). */
    public static String configDigestOf(String templateHash) {
        if (templateHash == null) {
            return null;
        }
        int dash = templateHash.indexOf('-');
        return dash > 0 ? templateHash.substring(0, dash) : null;
    }

    public static final String VALIDATIONS_DIR = "/run/nvidia/validations";
    public static final String HOST_ROOT = "/host";

    /**
     * Where simulated GPUs take injected faults from (node-agent-lib's SimulatedFaults, under the
     * host root).
     */
    public static final String SIMULATED_GPU_DIR = "/run/nvidia/simulated-gpu";

    public static final int HEALTH_PORT = 8081;
    public static final int METRICS_PORT = 9400;

    /** The kubelet root as the agents see it, whatever the host's is. */
    static final String IN_CONTAINER_KUBELET_ROOT = "/var/lib/kubelet";
}
