package org.gpuoperator.deviceplugin.health;

import java.util.Set;
import java.util.TreeSet;
import org.gpuoperator.node.deviceconfig.ConfigException;

/**
 * Which XID errors make a device unhealthy. By default every XID except the application errors
 * upstream ignores (13, 31, 43, 45, 68, 109). Configured like upstream with {@code
 * DP_DISABLE_HEALTHCHECKS} ({@code all}, {@code xids}, or more XIDs to ignore) and {@code
 * DP_ENABLE_HEALTHCHECKS} (XIDs to treat as critical even when ignored).
 *
 * @param enabled false: no health checks at all (devices stay Healthy)
 * @param ignoredXids XIDs that do not change a device's health
 */
public record HealthPolicy(boolean enabled, Set<Long> ignoredXids) {

    public static final Set<Long> DEFAULT_IGNORED_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

    public HealthPolicy {
        ignoredXids = Set.copyOf(ignoredXids);
    }

    public static HealthPolicy defaults() {
        return new HealthPolicy(true, DEFAULT_IGNORED_XIDS);
    }

    /**
     * Builds the policy from the two settings (null or empty = not set).
     *
     * @param disable {@code all} or {@code xids} (no health checks), or a comma list of XIDs to
     *     ignore as well
     * @param enable a comma list of XIDs to treat as critical, overriding the ignored ones
     */
    public static HealthPolicy parse(String disable, String enable) {
        boolean enabled = true;
        Set<Long> ignored = new TreeSet<>(DEFAULT_IGNORED_XIDS);
        if (disable != null && !disable.isBlank()) {
            String d = disable.trim().toLowerCase(java.util.Locale.ROOT);
            if (d.equals("all") || d.equals("xids")) {
                enabled = false;
            } else {
                ignored.addAll(xids(disable, "DP_DISABLE_HEALTHCHECKS"));
            }
        }
        if (enable != null && !enable.isBlank()) {
            String e = enable.trim().toLowerCase(java.util.Locale.ROOT);
            if (e.equals("all") || e.equals("xids")) {
                enabled = true;
                ignored.clear();
            } else {
                ignored.removeAll(xids(enable, "DP_ENABLE_HEALTHCHECKS"));
            }
        }
        return new HealthPolicy(enabled, ignored);
    }

    /** Whether XID {@code xid} makes the device unhealthy. */
    public boolean critical(long xid) {
        return enabled && !ignoredXids.contains(xid);
    }

    private static Set<Long> xids(String list, String name) {
        Set<Long> out = new TreeSet<>();
        for (String part : list.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            try {
                out.add(Long.parseLong(p));
            } catch (NumberFormatException e) {
                throw new ConfigException(
                        name + ": '" + p + "' is not an XID number (expected e.g. 13,31 or all)");
            }
        }
        return out;
    }
}
