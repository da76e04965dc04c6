package org.gpuoperator.controller.operand;

/** One host path an operand mounts, and why; the privilege audit lists these. */
public record HostMount(
        String name,
        String hostPath,
        String containerPath,
        String type,
        boolean readOnly,
        String propagation,
        String why) {

    /**
     * {@code /run/nvidia/validations}: every agent but the driver writes its readiness file there.
     */
    static HostMount validations() {
        return new HostMount(
                "run-nvidia-validations",
                PodContract.VALIDATIONS_DIR,
                PodContract.VALIDATIONS_DIR,
                "DirectoryOrCreate",
                false,
                null,
                "readiness files shared by the agents on the node");
    }

    /** A directory under the kubelet root, mounted where the agents expect the default root. */
    static HostMount kubeletDir(String kubeletRoot, String name, String dir, String why) {
        return new HostMount(
                name,
                kubeletRoot + "/" + dir,
                PodContract.IN_CONTAINER_KUBELET_ROOT + "/" + dir,
                "Directory",
                false,
                null,
                why);
    }

    /** This mount, read-only. */
    HostMount asReadOnly() {
        return new HostMount(name, hostPath, containerPath, type, true, propagation, why);
    }

    /** A host directory the agent reads under {@link PodContract#HOST_ROOT}. */
    static HostMount underHostRoot(
            String name, String hostPath, String type, boolean readOnly, String why) {
        return new HostMount(
                name, hostPath, PodContract.HOST_ROOT + hostPath, type, readOnly, null, why);
    }
}
