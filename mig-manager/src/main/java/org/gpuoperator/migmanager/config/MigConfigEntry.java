package org.gpuoperator.migmanager.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of a named MIG config: which GPUs it selects and the layout they get.
 *
 * @param devices {@code all}, or GPU indices
 * @param deviceFilter PCI device ids ({@link PciDeviceId#normalize normalized}) a GPU must have one
 *     of; empty: any GPU
 * @param migEnabled MIG mode
 * @param migDevices MIG profile name → count, in file order; empty when MIG is off, or on with no
 *     devices ({@code mig-devices: {}})
 */
public record MigConfigEntry(
        Devices devices,
        List<String> deviceFilter,
        boolean migEnabled,
        Map<String, Integer> migDevices) {

    public MigConfigEntry {
        Objects.requireNonNull(devices, "devices");
        deviceFilter = deviceFilter.stream().map(PciDeviceId::normalize).toList();
        migDevices = Collections.unmodifiableMap(new LinkedHashMap<>(migDevices));
        if (!migEnabled && migDevices.values().stream().anyMatch(c -> c > 0)) {
            throw new IllegalArgumentException("MIG devices given with mig-enabled false");
        }
        if (migDevices.values().stream().anyMatch(c -> c < 0)) {
            throw new IllegalArgumentException("negative MIG device count");
        }
    }

    /**
     * Whether the device filter lets a GPU with this PCI device id through: always without a
     * filter; never with one when the id is unknown (null).
     */
    public boolean matchesDeviceFilter(String deviceId) {
        if (deviceFilter.isEmpty()) {
            return true;
        }
        return deviceId != null && deviceFilter.contains(PciDeviceId.normalize(deviceId));
    }

    /** The {@code devices} field: every GPU, or some by index. */
    public sealed interface Devices {

        Devices ALL = new All();

        boolean includes(int gpuIndex);

        static Devices indices(Integer... indices) {
            return new Indices(List.of(indices));
        }
    }

    /** {@code devices: all}. */
    public record All() implements Devices {
        @Override
        public boolean includes(int gpuIndex) {
            return true;
        }

        @Override
        public String toString() {
            return "all";
        }
    }

    /** {@code devices: [0, 1]}: GPU indices, in file order. */
    public record Indices(List<Integer> indices) implements Devices {
        public Indices {
            indices = List.copyOf(indices);
            if (indices.stream().anyMatch(i -> i < 0)) {
                throw new IllegalArgumentException("negative GPU index in " + indices);
            }
        }

        @Override
        public boolean includes(int gpuIndex) {
            return indices.contains(gpuIndex);
        }

        @Override
        public String toString() {
            return indices.toString();
        }
    }
}
