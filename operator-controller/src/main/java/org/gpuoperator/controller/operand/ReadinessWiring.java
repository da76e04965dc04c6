package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whose readiness file is whose, and which file each agent waits for: the one place that makes sure
 * no agent waits for a file that no enabled operand writes (pure).
 *
 * <p>A layer's file is written by the operand that owns the layer when it is enabled, else by the
 * validator once it validated the host's layer; {@code plugin-ready} has no writer when the device
 * plugin is disabled (the validator then skips the plugin check), and {@code cuda-ready} is always
 * the validator's.
 */
public final class ReadinessWiring {

    public static final String DRIVER_READY = "driver-ready";
    public static final String TOOLKIT_READY = "toolkit-ready";
    public static final String CUDA_READY = "cuda-ready";
    public static final String PLUGIN_READY = "plugin-ready";

    /** Feature discovery's wait setting ({@code --wait-for}); {@code none} does not wait. */
    static final String GFD_WAIT_FOR = "GFD_WAIT_FOR";

    private ReadinessWiring() {}

    /** The enabled operand that writes this readiness file, if any. */
    public static Optional<Operand> writer(String file, Set<Operand> enabled) {
        Operand owner =
                switch (file) {
                    case DRIVER_READY -> Operand.DRIVER;
                    case TOOLKIT_READY -> Operand.CONTAINER_TOOLKIT;
                    case PLUGIN_READY -> Operand.DEVICE_PLUGIN;
                    case CUDA_READY -> Operand.VALIDATOR;
                    default ->
                            throw new IllegalArgumentException("no such readiness file: " + file);
                };
        if (enabled.contains(owner)) {
            return Optional.of(owner);
        }
        boolean validatorWritesIt = !file.equals(PLUGIN_READY);
        return validatorWritesIt && enabled.contains(Operand.VALIDATOR)
                ? Optional.of(Operand.VALIDATOR)
                : Optional.empty();
    }

    /**
     * The file the operand's agent waits for on the node before it starts, or empty when it waits
     * for none. The first candidate with a writer wins: feature discovery follows the device plugin
     * when it runs, else the toolkit layer.
     */
    public static Optional<String> waitsFor(Operand operand, Set<Operand> enabled) {
        return candidates(operand).stream()
                .filter(file -> writer(file, enabled).isPresent())
                .findFirst();
    }

    /**
     * The files each agent can wait for, most specific first. The toolkit agent waits for
     * driver-ready and the device plugin for toolkit-ready in their code; the exporter and the
     * driver wait for nothing; the validator's checks follow its *_MANAGED env instead.
     */
    static List<String> candidates(Operand operand) {
        return switch (operand) {
            case CONTAINER_TOOLKIT -> List.of(DRIVER_READY);
            case DEVICE_PLUGIN -> List.of(TOOLKIT_READY);
            case GPU_FEATURE_DISCOVERY -> List.of(PLUGIN_READY, TOOLKIT_READY, DRIVER_READY);
            case DRIVER, DCGM_EXPORTER, MIG_MANAGER, VALIDATOR -> List.of();
        };
    }

    /**
     * The env that tells an agent with a configurable wait which file to wait for (feature
     * discovery only; the others' waits are fixed in their code and always have a writer while the
     * validator runs).
     */
    static List<EnvVar> waitEnv(Operand operand, Set<Operand> enabled) {
        if (operand != Operand.GPU_FEATURE_DISCOVERY) {
            return List.of();
        }
        return List.of(OperandModel.env(GFD_WAIT_FOR, waitsFor(operand, enabled).orElse("none")));
    }
}
