package org.gpuoperator.gfd.labels;

/**
 * The {@code gpu.family} label: the architecture name for a CUDA compute capability, as upstream
 * GFD names it.
 */
public final class ArchFamily {

    public static final String UNDEFINED = "undefined";

    private ArchFamily() {}

    public static String of(int major, int minor) {
        return switch (major) {
            case 1 -> "tesla";
            case 2 -> "fermi";
            case 3 -> "kepler";
            case 5 -> "maxwell";
            case 6 -> "pascal";
            case 7 -> minor < 5 ? "volta" : "turing";
            case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
            case 9 -> "hopper";
            // Blackwell has two compute capabilities: 10.x (data centre) and 12.x
            // (workstation/consumer).
            case 10, 12 -> "blackwell";
            case 13 -> "rubin";
            default -> UNDEFINED;
        };
    }
}
