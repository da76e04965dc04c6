package org.gpuoperator.deviceplugin.config;

/** How MIG devices are advertised: {@code none} (whole GPUs), {@code single} or {@code mixed}. */
public enum MigStrategy {
    NONE, SINGLE, MIXED;

    public String value() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
