package org.gpuoperator.node.inventory.nvml;

/**
 * MIG profile names as resources and labels use them ({@code 1g.5gb}, {@code 1g.5gb+me}, {@code
 * 1c.3g.20gb}), from what NVML says. NVML's own name wins (a MIG device's {@code "<product> MIG
 * <profile>"}, a profile's {@code "MIG <profile>"}); only a driver too old to name them gets a name
 * derived from slices and memory, the way upstream's tools derive it. One place, so that the
 * inventory's MIG devices and the partitioner's profiles are named alike.
 */
final class NvmlMigNames {

    private NvmlMigNames() {}

    /**
     * The profile in a name NVML gives ({@code "NVIDIA A100-SXM4-40GB MIG 1g.5gb"}, {@code "MIG
     * 1g.5gb"}), or null when the name holds none.
     */
    static String fromNvmlName(String nvmlName) {
        if (nvmlName == null) {
            return null;
        }
        String n = nvmlName.strip();
        int at = n.lastIndexOf(" MIG ");
        String p;
        if (at >= 0) {
            p = n.substring(at + 5).strip();
        } else if (n.startsWith("MIG ")) {
            p = n.substring(4).strip();
        } else {
            return null;
        }
        return p.isEmpty() || p.contains(" ") ? null : p;
    }

    /**
     * A name derived from the counts: {@code <g>g.<gb>gb}, or {@code <c>c.<g>g.<gb>gb} for a
     * compute instance smaller than its GPU instance, then {@code suffix}. The memory is counted in
     * eighths of the GPU's (its memory slices), rounded up, as a share of the GPU's memory in GB:
     * 4864 MiB of a 40960 MiB A100 is {@code 5gb}, 11008 MiB of a 95830 MiB H100 NVL {@code 12gb}.
     * Without the GPU's memory ({@code gpuMemoryMiB <= 0}) the MIG memory is rounded up to GiB.
     */
    static String derived(
            int giSlices, int ciSlices, long memoryMiB, long gpuMemoryMiB, String suffix) {
        long gb;
        if (gpuMemoryMiB > 0) {
            long eighths = Math.max(1, (memoryMiB * 8 + gpuMemoryMiB - 1) / gpuMemoryMiB);
            long gpuGb = (gpuMemoryMiB + 1023) / 1024;
            gb = Math.round(gpuGb * eighths / 8.0);
        } else {
            gb = (memoryMiB + 1023) / 1024;
        }
        return (giSlices == ciSlices ? "" : ciSlices + "c.")
                + giSlices
                + "g."
                + gb
                + "gb"
                + (suffix == null ? "" : suffix);
    }

    /**
     * The suffix NVML gives the profiles of a {@code NVML_GPU_INSTANCE_PROFILE_*} constant beyond
     * the plain ones: {@code +me} (media extensions, REV1), {@code +gfx} (graphics), {@code -me}
     * (no media engines), {@code +me.all} (all media engines); empty for the others.
     */
    static String suffix(int giProfile) {
        return switch (giProfile) {
            case NvmlLibrary.GPU_INSTANCE_PROFILE_1_SLICE_REV1,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_2_SLICE_REV1 ->
                    "+me";
            case NvmlLibrary.GPU_INSTANCE_PROFILE_1_SLICE_GFX,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_2_SLICE_GFX,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_4_SLICE_GFX,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_3_SLICE_GFX ->
                    "+gfx";
            case NvmlLibrary.GPU_INSTANCE_PROFILE_1_SLICE_NO_ME,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_2_SLICE_NO_ME ->
                    "-me";
            case NvmlLibrary.GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME,
                    NvmlLibrary.GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME ->
                    "+me.all";
            default -> "";
        };
    }
}
