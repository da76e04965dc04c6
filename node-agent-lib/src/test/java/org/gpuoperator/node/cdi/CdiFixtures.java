package org.gpuoperator.node.cdi;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/** Shared test inputs: simulated GPUs, a driver as discovery finds it, a real ld.so.cache. */
public final class CdiFixtures {

    public static final String VERSION = "550.54.15";
    public static final String LIB = "/usr/lib/x86_64-linux-gnu";
    public static final String HOOK = "/usr/local/nvidia/toolkit/nvidia-cdi-hook";

    private CdiFixtures() {}

    public static List<Gpu> gpus(String profile, Path hostRoot) {
        return new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get(profile),
                        "node-a",
                        hostRoot,
                        Clock.systemUTC())
                .gpus();
    }

    /** A driver container's files, with the control nodes the host has. */
    public static DriverFiles driver() {
        Map<String, CdiSpec.DeviceNode> nodes = new LinkedHashMap<>();
        nodes.put("/dev/nvidiactl", CdiSpec.DeviceNode.charDevice("/dev/nvidiactl", 195, 255));
        nodes.put("/dev/nvidia0", CdiSpec.DeviceNode.charDevice("/dev/nvidia0", 195, 0));
        nodes.put("/dev/nvidia-uvm", CdiSpec.DeviceNode.charDevice("/dev/nvidia-uvm", 510, 0));
        nodes.put(
                "/dev/nvidia-uvm-tools",
                CdiSpec.DeviceNode.charDevice("/dev/nvidia-uvm-tools", 510, 1));
        nodes.put(
                "/dev/nvidia-modeset",
                CdiSpec.DeviceNode.charDevice("/dev/nvidia-modeset", 195, 254));
        return new DriverFiles(
                "/run/nvidia/driver",
                VERSION,
                List.of(LIB + "/libcuda.so." + VERSION, LIB + "/libnvidia-ml.so." + VERSION),
                List.of("/usr/bin/nvidia-smi", "/usr/bin/nvidia-persistenced"),
                nodes,
                Map.of());
    }

    /**
     * A glibc {@code glibc-ld.so.cache1.1} file with the given soname → path entries (x86-64 libc6
     * flags), optionally behind an old-format {@code ld.so-1.7.0} table.
     */
    public static byte[] ldCache(Map<String, String> entries, boolean oldFormatFirst) {
        ByteArrayOutputStream strings = new ByteArrayOutputStream();
        int n = entries.size();
        int stringsStart = LdCache.HEADER + n * LdCache.ENTRY;
        ByteBuffer table =
                ByteBuffer.allocate(LdCache.HEADER + n * LdCache.ENTRY)
                        .order(ByteOrder.LITTLE_ENDIAN);
        table.put("glibc-ld.so.cache1.1".getBytes(StandardCharsets.US_ASCII));
        table.putInt(n);
        int[] offsets = new int[2 * n];
        int i = 0;
        for (Map.Entry<String, String> e : entries.entrySet()) {
            offsets[i++] = stringsStart + strings.size();
            strings.writeBytes((e.getKey() + "\0").getBytes(StandardCharsets.UTF_8));
            offsets[i++] = stringsStart + strings.size();
            strings.writeBytes((e.getValue() + "\0").getBytes(StandardCharsets.UTF_8));
        }
        table.putInt(strings.size());
        table.put((byte) 2); // little endian
        table.position(LdCache.HEADER);
        for (int k = 0; k < n; k++) {
            table.putInt(0x0303); // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
            table.putInt(offsets[2 * k]);
            table.putInt(offsets[2 * k + 1]);
            table.putInt(0);
            table.putLong(0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (oldFormatFirst) {
            // an empty old table: magic, pad to 12, count 0 → 16 bytes, already 8-aligned
            ByteBuffer old = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            old.put("ld.so-1.7.0".getBytes(StandardCharsets.US_ASCII));
            old.position(12);
            old.putInt(0);
            out.writeBytes(old.array());
        }
        out.writeBytes(table.array());
        out.writeBytes(strings.toByteArray());
        return out.toByteArray();
    }

    /**
     * A driver container's files of every kind: libraries with VDPAU and graphics ones, a tool,
     * firmware, graphics files, sockets, and the first GPU's DRI nodes by its bus id.
     */
    public static DriverFiles everyKind(List<Gpu> gpus) {
        String bus = DriverFiles.busId(gpus.getFirst().pciBusId());
        Map<String, CdiSpec.DeviceNode> nodes =
                Map.of(
                        "/dev/dri/card1",
                        CdiSpec.DeviceNode.charDevice("/dev/dri/card1", 226, 1),
                        "/dev/dri/renderD128",
                        CdiSpec.DeviceNode.charDevice("/dev/dri/renderD128", 226, 128));
        return new DriverFiles(
                "/run/nvidia/driver",
                VERSION,
                List.of(
                        LIB + "/libcuda.so." + VERSION,
                        LIB + "/libnvidia-allocator.so." + VERSION,
                        LIB + "/libnvidia-vulkan-producer.so." + VERSION,
                        LIB + "/vdpau/libvdpau_nvidia.so." + VERSION),
                List.of("/usr/bin/nvidia-imex"),
                nodes,
                Map.of(),
                Map.of(),
                Map.of(LIB + "/vdpau/libvdpau_nvidia.so.1", "libvdpau_nvidia.so." + VERSION),
                Map.of(
                        "/etc/vulkan/icd.d/nvidia_icd.json",
                        "/usr/share/vulkan/icd.d/nvidia_icd.json"),
                List.of("/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin"),
                List.of(
                        "/etc/vulkan/icd.d/nvidia_icd.json",
                        "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so." + VERSION),
                List.of("/run/nvidia-persistenced/socket", "/tmp/nvidia-mps"),
                Map.of(
                        bus,
                        List.of(
                                new DriverFiles.DriLink(
                                        "/dev/dri/by-path/pci-" + bus + "-card",
                                        "../card1",
                                        "/dev/dri/card1"),
                                new DriverFiles.DriLink(
                                        "/dev/dri/by-path/pci-" + bus + "-render",
                                        "../renderD128",
                                        "/dev/dri/renderD128"))));
    }
}
