package org.gpuoperator.node.inventory.nvml;

/** NVML's {@code nvmlReturn_t} codes, as numbered in {@code nvml.h}. */
public enum NvmlReturn {
    SUCCESS(0),
    ERROR_UNINITIALIZED(1),
    ERROR_INVALID_ARGUMENT(2),
    ERROR_NOT_SUPPORTED(3),
    ERROR_NO_PERMISSION(4),
    ERROR_ALREADY_INITIALIZED(5),
    ERROR_NOT_FOUND(6),
    ERROR_INSUFFICIENT_SIZE(7),
    ERROR_INSUFFICIENT_POWER(8),
    ERROR_DRIVER_NOT_LOADED(9),
    ERROR_TIMEOUT(10),
    ERROR_IRQ_ISSUE(11),
    ERROR_LIBRARY_NOT_FOUND(12),
    ERROR_FUNCTION_NOT_FOUND(13),
    ERROR_CORRUPTED_INFOROM(14),
    ERROR_GPU_IS_LOST(15),
    ERROR_RESET_REQUIRED(16),
    ERROR_OPERATING_SYSTEM(17),
    ERROR_LIB_RM_VERSION_MISMATCH(18),
    ERROR_IN_USE(19),
    ERROR_MEMORY(20),
    ERROR_NO_DATA(21),
    ERROR_VGPU_ECC_NOT_SUPPORTED(22),
    ERROR_INSUFFICIENT_RESOURCES(23),
    ERROR_FREQ_NOT_SUPPORTED(24),
    ERROR_ARGUMENT_VERSION_MISMATCH(25),
    ERROR_DEPRECATED(26),
    ERROR_NOT_READY(27),
    ERROR_GPU_NOT_FOUND(28),
    ERROR_INVALID_STATE(29),
    ERROR_UNKNOWN(999);

    private static final NvmlReturn[] BY_SMALL_CODE = new NvmlReturn[30];

    static {
        for (NvmlReturn r : values()) {
            if (r.code < BY_SMALL_CODE.length) {
                BY_SMALL_CODE[r.code] = r;
            }
        }
    }

    private final int code;

    NvmlReturn(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /**
     * The code's constant; a code this enum does not know (a newer driver) maps to {@link
     * #ERROR_UNKNOWN}.
     */
    public static NvmlReturn of(int code) {
        if (code >= 0 && code < BY_SMALL_CODE.length && BY_SMALL_CODE[code] != null) {
            return BY_SMALL_CODE[code];
        }
        return ERROR_UNKNOWN;
    }

    /**
     * Whether a reading that failed with this code is simply not available on this GPU (left out of
     * a sample) rather than an error: the GPU or driver does not support it, or this process may
     * not read it.
     */
    public static boolean meansUnavailable(int code) {
        return code == ERROR_NOT_SUPPORTED.code
                || code == ERROR_FUNCTION_NOT_FOUND.code
                || code == ERROR_NO_PERMISSION.code
                || code == ERROR_NO_DATA.code;
    }

    /** The name as nvml.h spells it, e.g. {@code NVML_ERROR_GPU_IS_LOST}. */
    public String headerName() {
        return "NVML_" + name();
    }
}
