package org.gpuoperator.gfd.labels;

import java.util.Locale;

/** How MIG devices are exposed, the same setting the device plugin uses ({@code --mig-strategy}). */
public enum MigStrategy {
    NONE, SINGLE, MIXED;

    /** The value as users write it and as the {@code mig.strategy} label shows it. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code none|single|mixed}; {@code where} names the flag or field for the error. */
    public static MigStrategy parse(String value, String where) {
        return switch (value == null ? "" : value.strip()) {
            case "none" -> NONE;
            case "single" -> SINGLE;
            case "mixed" -> MIXED;
            default -> throw new IllegalArgumentException(
                    where + ": invalid MIG strategy '" + value + "', expected none, single or mixed");
        };
    }
}
