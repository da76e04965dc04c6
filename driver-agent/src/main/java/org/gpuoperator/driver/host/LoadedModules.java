package org.gpuoperator.driver.host;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kernel's loaded modules, parsed from {@code /proc/modules} (global to the kernel, so it is
 * the same file in any container): {@code nvidia_uvm 1437696 2 nvidia_peermem, Live
 * 0x0000000000000000 (POE)}.
 */
public record LoadedModules(Map<String, Module> byName) {

    /**
     * @param name the kernel's name (underscores: {@code nvidia_uvm})
     * @param refCount users of the module (other modules and open files)
     * @param usedBy modules that depend on it
     */
    public record Module(String name, int refCount, List<String> usedBy) {}

    public LoadedModules {
        byName = Map.copyOf(byName);
    }

    public static final LoadedModules NONE = new LoadedModules(Map.of());

    /** Parses the text of {@code /proc/modules}; malformed lines are skipped. */
    public static LoadedModules parse(String text) {
        Map<String, Module> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3 || f[0].isEmpty()) {
                continue;
            }
            int ref;
            try {
                ref = Integer.parseInt(f[2]);
            } catch (NumberFormatException e) {
                continue;
            }
            List<String> usedBy = new ArrayList<>();
            if (f.length > 3 && !f[3].equals("-")) {
                for (String u : f[3].split(",")) {
                    if (!u.isBlank()) {
                        usedBy.add(u);
                    }
                }
            }
            out.put(f[0], new Module(f[0], ref, List.copyOf(usedBy)));
        }
        return new LoadedModules(out);
    }

    /** The kernel's name for a module file name: {@code nvidia-uvm} becomes {@code nvidia_uvm}. */
    public static String kernelName(String module) {
        return module.replace('-', '_');
    }

    public boolean isLoaded(String module) {
        return byName.containsKey(kernelName(module));
    }

    public Optional<Module> get(String module) {
        return Optional.ofNullable(byName.get(kernelName(module)));
    }
}
