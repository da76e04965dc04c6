package org.gpuoperator.toolkit.simulated;

/**
 * The NVIDIA runtime's mode, from the name it is called by (as upstream installs it): {@code
 * nvidia-container-runtime} is {@code auto}, {@code nvidia-container-runtime.cdi} {@code cdi},
 * {@code nvidia-container-runtime.legacy} {@code legacy}.
 *
 * <ul>
 *   <li>{@code legacy}: {@code NVIDIA_VISIBLE_DEVICES} only; CDI annotations are ignored.
 *   <li>{@code auto}: CDI annotations and fully qualified names in {@code NVIDIA_VISIBLE_DEVICES}
 *       ({@code nvidia.com/gpu=0}) go through CDI, the other ids the legacy way.
 *   <li>{@code cdi}: every request goes through CDI; plain ids in {@code NVIDIA_VISIBLE_DEVICES}
 *       get the default kind ({@code 0} → {@code nvidia.com/gpu=0}).
 * </ul>
 */
public enum RuntimeMode {
    AUTO,
    CDI,
    LEGACY;

    /** Set by the wrapper from the name it was called by. */
    public static final String ENV = "NVIDIA_SIMULATED_RUNTIME_MODE";

    public static RuntimeMode of(String value) {
        if (value == null) {
            return AUTO;
        }
        return switch (value) {
            case "cdi" -> CDI;
            case "legacy" -> LEGACY;
            default -> AUTO;
        };
    }
}
