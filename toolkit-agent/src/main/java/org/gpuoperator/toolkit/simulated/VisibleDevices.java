package org.gpuoperator.toolkit.simulated;

import java.util.Arrays;
import java.util.List;

/**
 * What a container asks for in {@code NVIDIA_VISIBLE_DEVICES}, with the real runtime's meaning of
 * each value: unset, empty or {@code void} = not a GPU container (left alone); {@code none} = a GPU
 * container with no device (driver tools, no GPU); {@code all}; or a comma list of indices, {@code
 * GPU-} UUIDs, {@code MIG-} UUIDs and {@code <gpu>:<mig>} pairs. Pure.
 *
 * @param kind what the value means
 * @param ids the requested ids in order (LIST only)
 */
public record VisibleDevices(Kind kind, List<String> ids) {

    public enum Kind {
        NOT_REQUESTED,
        NONE,
        ALL,
        LIST
    }

    public static final String ENV = "NVIDIA_VISIBLE_DEVICES";
    public static final VisibleDevices NOT_REQUESTED =
            new VisibleDevices(Kind.NOT_REQUESTED, List.of());

    public VisibleDevices {
        ids = List.copyOf(ids);
    }

    /**
     * @param value the env value, null when unset
     */
    public static VisibleDevices parse(String value) {
        if (value == null) {
            return NOT_REQUESTED;
        }
        String v = value.trim();
        switch (v) {
            case "", "void" -> {
                return NOT_REQUESTED;
            }
            case "none" -> {
                return new VisibleDevices(Kind.NONE, List.of());
            }
            case "all" -> {
                return new VisibleDevices(Kind.ALL, List.of());
            }
            default -> {
                List<String> ids =
                        Arrays.stream(v.split(","))
                                .map(String::trim)
                                .filter(s -> !s.isEmpty())
                                .toList();
                if (ids.contains("all")) {
                    return new VisibleDevices(Kind.ALL, List.of());
                }
                return ids.isEmpty() ? NOT_REQUESTED : new VisibleDevices(Kind.LIST, ids);
            }
        }
    }

    /**
     * The value of {@code NVIDIA_VISIBLE_DEVICES} in an OCI {@code process.env} list (last one
     * wins, as in execve).
     */
    public static String fromEnv(List<String> env) {
        String found = null;
        for (String e : env) {
            if (e.startsWith(ENV + "=")) {
                found = e.substring(ENV.length() + 1);
            }
        }
        return found;
    }

    public boolean requested() {
        return kind != Kind.NOT_REQUESTED;
    }
}
