package org.gpuoperator.gfd.labels;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Product and machine names as GFD writes them into label values. */
public final class ProductNames {

    private static final Pattern NOT_ALLOWED = Pattern.compile("[^A-Za-z0-9\\-_. ]");
    private static final Pattern BLANKS = Pattern.compile("\\s+");

    private ProductNames() {}

    /**
     * Drops every character outside {@code [A-Za-z0-9-_. ]}, then joins the remaining words with
     * {@code -} (runs of blanks collapse, leading/trailing blanks vanish): {@code
     * "NVIDIA-TITAN-X-(Pascal)"} becomes {@code "NVIDIA-TITAN-X-Pascal"}, {@code "Tesla T4"}
     * becomes {@code "Tesla-T4"}.
     */
    public static String sanitise(String input) {
        String kept = NOT_ALLOWED.matcher(input).replaceAll("").strip();
        return kept.isEmpty() ? "" : BLANKS.matcher(kept).replaceAll("-");
    }

    /**
     * The product label value: the sanitised non-empty parts joined by {@code -}, plus {@code
     * -SHARED} when the resource is shared and not renamed (a renamed resource already says so in
     * its name).
     */
    public static String product(boolean sharedNotRenamed, String... parts) {
        List<String> kept = new ArrayList<>();
        for (String p : parts) {
            if (p != null && !p.isEmpty()) {
                kept.add(sanitise(p));
            }
        }
        if (kept.isEmpty()) {
            return "";
        }
        if (sharedNotRenamed) {
            kept.add("SHARED");
        }
        return String.join("-", kept);
    }
}
