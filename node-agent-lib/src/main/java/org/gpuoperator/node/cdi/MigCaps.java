package org.gpuoperator.node.cdi;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code /dev/nvidia-caps/nvidia-cap<minor>} nodes that give a container access to a MIG
 * device. The driver lists the minors in {@code /proc/driver/nvidia-caps/mig-minors} ({@code
 * gpu<minor>/gi<id>/access <capMinor>} and {@code gpu<minor>/gi<id>/ci<id>/access <capMinor>});
 * without that file (a simulated node) the driver's own table is used: {@code config} 1, {@code
 * monitor} 2, then per GPU 15 GPU instances of 9 minors each (the GI, then its 8 CIs). Pure.
 */
public final class MigCaps {

    public static final String CAP_PREFIX = "/dev/nvidia-caps/nvidia-cap";
    static final int FIRST = 3;
    static final int GI_PER_GPU = 15;
    static final int MINORS_PER_GI = 9;

    private MigCaps() {}

    /** {@code mig-minors} text → key ({@code gpu0/gi1/access}) → minor; bad lines are skipped. */
    public static Map<String, Integer> parse(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 2 && f[1].matches("\\d{1,9}")) {
                out.put(f[0], Integer.parseInt(f[1]));
            }
        }
        return out;
    }

    /** The GPU instance's access node. */
    public static String gpuInstance(Map<String, Integer> minors, int gpuMinor, int gi) {
        String key = "gpu" + gpuMinor + "/gi" + gi + "/access";
        return CAP_PREFIX + minors.getOrDefault(key, giMinor(gpuMinor, gi));
    }

    /** The compute instance's access node. */
    public static String computeInstance(
            Map<String, Integer> minors, int gpuMinor, int gi, int ci) {
        String key = "gpu" + gpuMinor + "/gi" + gi + "/ci" + ci + "/access";
        return CAP_PREFIX + minors.getOrDefault(key, giMinor(gpuMinor, gi) + 1 + ci);
    }

    private static int giMinor(int gpuMinor, int gi) {
        return FIRST + gpuMinor * GI_PER_GPU * MINORS_PER_GI + gi * MINORS_PER_GI;
    }
}
