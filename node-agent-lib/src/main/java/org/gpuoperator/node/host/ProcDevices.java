package org.gpuoperator.node.host;

import java.util.LinkedHashMap;
import java.util.Map;

/** The kernel's {@code /proc/devices}: which major each character device driver has. Pure. */
public final class ProcDevices {

    public static final String PATH = "/proc/devices";

    private ProcDevices() {}

    /**
     * Character device majors by name ({@code 195 nvidia-frontend}, {@code 236 nvidia-uvm}), in
     * file order; block devices and lines that are not {@code <major> <name>} are left out.
     */
    public static Map<String, Integer> characterMajors(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        boolean chars = false;
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (t.startsWith("Character devices")) {
                chars = true;
            } else if (t.startsWith("Block devices")) {
                chars = false;
            } else if (chars) {
                String[] f = t.split("\\s+");
                if (f.length == 2 && f[0].matches("\\d{1,9}")) {
                    out.putIfAbsent(f[1], Integer.parseInt(f[0]));
                }
            }
        }
        return out;
    }
}
