package org.gpuoperator.driver.install;

import java.util.Locale;

/**
 * Which kernel modules to build or load: the policy's {@code spec.driver.kernelModuleType}, as
 * upstream's driver container takes it. A package keeps the open modules' sources under {@code
 * kernel-open/} and the proprietary ones under {@code kernel/}.
 */
public enum KernelModuleType {
    /** The open modules when the package has them and the branch defaults to them (560 on). */
    AUTO,
    OPEN,
    PROPRIETARY;

    /** Upstream's default flavour switched to the open modules with this branch. */
    static final int OPEN_BY_DEFAULT_FROM = 560;

    /**
     * @throws IllegalArgumentException naming the option and the values it takes
     */
    public static KernelModuleType parse(String value) {
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--kernel-module-type (KERNEL_MODULE_TYPE): '"
                            + value
                            + "' is not one of auto, open, proprietary");
        }
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
