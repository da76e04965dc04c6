package org.gpuoperator.gfd.labels;

import java.util.regex.Pattern;

/**
 * The label keys that belong to feature discovery. Everything else under {@code nvidia.com/}
 * belongs to someone else (the controller's {@code gpu.present} and {@code gpu.deploy.*}, the MIG
 * manager's {@code mig.config}, the device plugin's {@code device-plugin.config}, ...), so a
 * publisher never sets or removes a key outside this set.
 */
public final class GfdKeys {

    public static final String PREFIX = "nvidia.com/";

    private static final String RESOURCE_SUFFIX =
            "(product|count|replicas|sharing-strategy|memory|family"
                    + "|compute\\.major|compute\\.minor|multiprocessors|slices\\.gi|slices\\.ci"
                    + "|engines\\.(copy|decoder|encoder|jpeg|ofa))";

    private static final Pattern OWNED =
            Pattern.compile(
                    "^nvidia\\.com/("
                            + "gfd\\.timestamp"
                            + "|gpu\\.machine|gpu\\.mode|gpu\\.clique"
                            + "|cuda\\.driver\\.(major|minor|rev)|cuda\\.runtime\\.(major|minor)"
                            + "|cuda\\.driver-version\\.(major|minor|revision|full)|cuda\\.runtime-version\\.(major|minor|full)"
                            + "|mig\\.capable|mig\\.strategy|mps\\.capable"
                            + "|vgpu\\.(present|host-driver-version|host-driver-branch)"
                            + "|gpu\\."
                            + RESOURCE_SUFFIX
                            + "|mig-[a-z0-9]+(\\.[a-z0-9]+)*\\."
                            + RESOURCE_SUFFIX
                            + ")$");

    private GfdKeys() {}

    /** Whether feature discovery may set or remove {@code key}. */
    public static boolean owned(String key) {
        return OWNED.matcher(key).matches();
    }
}
