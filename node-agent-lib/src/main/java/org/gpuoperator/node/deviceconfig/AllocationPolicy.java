package org.gpuoperator.node.deviceconfig;

/** For shared (time-sliced) and MIG devices: spread over physical GPUs, or fill one GPU first. */
public enum AllocationPolicy {
    DISTRIBUTED,
    PACKED;

    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
