package org.gpuoperator.node.deviceconfig;

import java.util.Locale;

/**
 * How MIG devices are exposed: {@code none} (whole GPUs), {@code single} or {@code mixed}. The
 * device plugin and feature discovery must agree on it, so both read it through {@link
 * ConfigField#MIG_STRATEGY}.
 */
public enum MigStrategy {
    NONE,
    SINGLE,
    MIXED;

    /** The value as users write it and as the {@code mig.strategy} label shows it. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }
}
