package org.gpuoperator.toolkit.simulated;

/**
 * The simulated runtime refuses to create a container, with the text the real NVIDIA runtime gives
 * in the same situation (users see it in {@code kubectl describe pod} after "OCI runtime create
 * failed: ").
 *
 * <p>Sources of the texts (as users report them):
 *
 * <ul>
 *   <li>unknown device: {@code nvidia-container-cli: device error: <id>: unknown device},
 *       NVIDIA/nvidia-container-toolkit #108, #632 and #29 (the cli matches the requested ids
 *       against the UUIDs and indices NVML enumerates);
 *   <li>no driver library: {@code nvidia-container-cli: initialization error: load library failed:
 *       libnvidia-ml.so.1: cannot open shared object file: no such file or directory},
 *       NVIDIA/libnvidia-container #231, NVIDIA/nvidia-container-toolkit #154 ("my drivers simply
 *       were not installed", docker/for-win #13835);
 *   <li>library there, kernel module not loaded: {@code nvidia-container-cli: initialization error:
 *       nvml error: driver not loaded}, NVIDIA/nvidia-container-toolkit #1269 and #260;
 *   <li>a GPU NVML cannot read while the cli enumerates devices: {@code nvidia-container-cli:
 *       detection error: nvml error: <NVML's error string, lower case>}, e.g. "unknown error" in
 *       NVIDIA/nvidia-container-toolkit #416 and #632; for a lost GPU NVML's string is "GPU is
 *       lost" (NVML_ERROR_GPU_IS_LOST);
 *   <li>CDI: {@code error modifying OCI spec: failed to inject CDI devices: unresolvable CDI
 *       devices <name>}, NVIDIA/nvidia-container-toolkit #1239, #434 and #1537.
 * </ul>
 */
public final class RuntimeRefusal extends Exception {

    private RuntimeRefusal(String message) {
        super(message);
    }

    public static RuntimeRefusal unknownDevice(String id) {
        return new RuntimeRefusal("nvidia-container-cli: device error: " + id + ": unknown device");
    }

    public static RuntimeRefusal noDriverLibrary() {
        return new RuntimeRefusal(
                "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
                        + "cannot open shared object file: no such file or directory");
    }

    public static RuntimeRefusal driverNotLoaded() {
        return new RuntimeRefusal(
                "nvidia-container-cli: initialization error: nvml error: driver not loaded");
    }

    public static RuntimeRefusal gpuLost() {
        return new RuntimeRefusal("nvidia-container-cli: detection error: nvml error: gpu is lost");
    }

    public static RuntimeRefusal unresolvableCdiDevices(java.util.List<String> devices) {
        return new RuntimeRefusal(
                "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices "
                        + String.join(", ", devices));
    }

    /** Not the real runtime's situation (a broken bundle): said plainly. */
    public static RuntimeRefusal invalid(String message) {
        return new RuntimeRefusal(message);
    }
}
