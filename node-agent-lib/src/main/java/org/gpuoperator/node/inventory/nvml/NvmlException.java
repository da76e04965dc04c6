package org.gpuoperator.node.inventory.nvml;

import org.gpuoperator.node.inventory.GpuSourceException;

/**
 * An NVML call returned an error. Carries the function, the raw code, its constant and NVML's own
 * text for it ({@code nvmlErrorString}), so logs say exactly what the driver said.
 */
public class NvmlException extends GpuSourceException {

    private final String function;
    private final int rawCode;
    private final String errorString;

    public NvmlException(String function, int rawCode, String errorString, String context) {
        super(message(function, rawCode, errorString, context));
        this.function = function;
        this.rawCode = rawCode;
        this.errorString = errorString;
    }

    private static String message(
            String function, int rawCode, String errorString, String context) {
        return function
                + " failed"
                + (context == null || context.isEmpty() ? "" : " " + context)
                + ": "
                + errorString
                + " ("
                + NvmlReturn.of(rawCode).headerName()
                + ", code "
                + rawCode
                + ")";
    }

    /** The NVML function that failed, e.g. {@code nvmlDeviceGetCount_v2}. */
    public String function() {
        return function;
    }

    /** The code as NVML returned it. */
    public int rawCode() {
        return rawCode;
    }

    /** The code's constant ({@link NvmlReturn#ERROR_UNKNOWN} for codes newer than this binding). */
    public NvmlReturn code() {
        return NvmlReturn.of(rawCode);
    }

    /** NVML's text for the code, from {@code nvmlErrorString}. */
    public String errorString() {
        return errorString;
    }
}
