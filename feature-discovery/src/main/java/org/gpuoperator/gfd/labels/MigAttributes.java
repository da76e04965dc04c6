package org.gpuoperator.gfd.labels;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MIG device attributes GFD labels ({@code slices.gi}, {@code slices.ci}, {@code engines.*})
 * that the shared GPU inventory does not carry. Slice counts follow from the profile name ({@code
 * [<c>c.]<g>g.<mem>gb[.me]}); engine counts come from NVIDIA's MIG user guide tables for the parts
 * listed here. For other parts the engine labels are left out rather than guessed.
 */
public final class MigAttributes {

    /** Engines a GPU instance of one profile gets. */
    public record Engines(int copy, int decoder, int encoder, int jpeg, int ofa) {}

    private static final Pattern PROFILE =
            Pattern.compile("^(?:(\\d+)c\\.)?(\\d+)g\\.\\d+gb(?:\\..*)?$");

    // A100 40GB (GA100): MIG user guide, "A100 MIG profiles" (no NVENC on A100).
    private static final Map<String, Engines> A100_40GB =
            Map.of(
                    "1g.5gb", new Engines(1, 0, 0, 0, 0),
                    "1g.5gb.me", new Engines(1, 1, 0, 1, 1),
                    "1g.10gb", new Engines(1, 1, 0, 0, 0),
                    "2g.10gb", new Engines(2, 1, 0, 0, 0),
                    "3g.20gb", new Engines(3, 2, 0, 0, 0),
                    "4g.20gb", new Engines(4, 2, 0, 0, 0),
                    "7g.40gb", new Engines(7, 5, 0, 1, 1));

    // H100 80GB (GH100): MIG user guide, "H100 MIG profiles" (no NVENC on H100).
    private static final Map<String, Engines> H100_80GB =
            Map.of(
                    "1g.10gb", new Engines(1, 1, 0, 1, 0),
                    "1g.10gb.me", new Engines(1, 1, 0, 1, 1),
                    "1g.20gb", new Engines(1, 1, 0, 1, 0),
                    "2g.20gb", new Engines(2, 2, 0, 2, 0),
                    "3g.40gb", new Engines(3, 3, 0, 3, 0),
                    "4g.40gb", new Engines(4, 4, 0, 4, 0),
                    "7g.80gb", new Engines(8, 7, 0, 7, 1));

    private MigAttributes() {}

    /**
     * GPU-instance slices of a profile, e.g. 3 for {@code 3g.20gb}; empty when the name has another
     * shape.
     */
    public static Optional<Integer> gpuInstanceSlices(String profile) {
        Matcher m = PROFILE.matcher(profile);
        return m.matches() ? Optional.of(Integer.parseInt(m.group(2))) : Optional.empty();
    }

    /**
     * Compute-instance slices: the {@code <c>c.} prefix, or the whole GPU instance when there is
     * none.
     */
    public static Optional<Integer> computeInstanceSlices(String profile) {
        Matcher m = PROFILE.matcher(profile);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)));
    }

    /** Engine counts for a profile of the given parent product, when this table knows that part. */
    public static Optional<Engines> engines(String parentProduct, String profile) {
        String p = parentProduct.toUpperCase(java.util.Locale.ROOT);
        String gi = giProfile(profile);
        if (p.contains("A100") && p.contains("40GB")) {
            return Optional.ofNullable(A100_40GB.get(gi));
        }
        if (p.contains("H100") && p.contains("80GB")) {
            return Optional.ofNullable(H100_80GB.get(gi));
        }
        return Optional.empty();
    }

    /**
     * The GPU-instance profile of a compute-instance profile ({@code 1c.3g.20gb} lives in {@code
     * 3g.20gb}).
     */
    private static String giProfile(String profile) {
        return profile.replaceFirst("^\\d+c\\.", "");
    }
}
