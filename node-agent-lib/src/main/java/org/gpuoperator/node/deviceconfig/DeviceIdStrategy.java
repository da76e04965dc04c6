package org.gpuoperator.node.deviceconfig;

/**
 * Whether Allocate names devices to the runtime by UUID or by index ({@code 0}, or {@code 0:1} for
 * MIG).
 */
public enum DeviceIdStrategy {
    UUID,
    INDEX;

    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
