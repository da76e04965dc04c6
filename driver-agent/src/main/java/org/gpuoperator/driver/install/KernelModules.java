package org.gpuoperator.driver.install;

import java.util.ArrayList;
import java.util.List;

/** The NVIDIA kernel modules, by file name, and the orders they load and unload in. */
public final class KernelModules {

    public static final String NVIDIA = "nvidia";
    public static final String UVM = "nvidia-uvm";
    public static final String MODESET = "nvidia-modeset";
    public static final String DRM = "nvidia-drm";
    public static final String PEERMEM = "nvidia-peermem";

    private KernelModules() {}

    /** Load order: each module after the ones it depends on (all depend on nvidia). */
    public static List<String> loadOrder(boolean peermem) {
        List<String> out = new ArrayList<>(List.of(NVIDIA, UVM, MODESET));
        if (peermem) {
            out.add(PEERMEM);
        }
        return List.copyOf(out);
    }

    /** Unload order: dependents first; includes modules others may have loaded (nvidia-drm). */
    public static List<String> unloadOrder() {
        return List.of(PEERMEM, DRM, MODESET, UVM, NVIDIA);
    }

    public static String fileName(String module) {
        return module + ".ko";
    }
}
