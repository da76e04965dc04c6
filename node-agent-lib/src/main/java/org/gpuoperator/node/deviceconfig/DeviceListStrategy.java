package org.gpuoperator.node.deviceconfig;

/** How Allocate tells the container runtime which devices a container gets. */
public enum DeviceListStrategy {
    /** {@code NVIDIA_VISIBLE_DEVICES=<ids>} */
    ENVVAR("envvar"),
    /**
     * {@code NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices} plus one /dev/null mount per
     * device
     */
    VOLUME_MOUNTS("volume-mounts"),
    /** CDI device names in a {@code cdi.k8s.io/} annotation */
    CDI_ANNOTATIONS("cdi-annotations"),
    /** CDI device names in the CRI {@code CDIDevice} field */
    CDI_CRI("cdi-cri");

    private final String value;

    DeviceListStrategy(String value) {
        this.value = value;
    }

    public String value() {
        return value;
    }

    public static DeviceListStrategy parse(String s) {
        for (DeviceListStrategy d : values()) {
            if (d.value.equals(s)) {
                return d;
            }
        }
        return null;
    }
}
