package org.gpuoperator.migmanager.plan;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * PCI device ids by NVML product name, for GPUs whose id is not known (simulated GPUs have none),
 * so that {@code device-filter} entries select them as they would the real part. Only used when the
 * GPU's own id is unknown; a name not listed leaves the id unknown, and filtered entries then pass
 * the GPU by.
 *
 * <p>Ids from the PCI ID repository ({@code pci.ids}); names as NVML reports them. Where one name
 * covers two ids (A100 PCIe 40GB), either is in the same filter groups of the default config.
 */
public final class ProductDeviceIds {

    private static final String PREFIX = "nvidia ";

    /** Product name without the {@code NVIDIA } prefix (older drivers omit it), lower case. */
    private static final Map<String, String> IDS =
            Map.ofEntries(
                    Map.entry("a100-sxm4-40gb", "0x20B010DE"),
                    Map.entry("a100-pcie-40gb", "0x20F110DE"),
                    Map.entry("a100-sxm4-80gb", "0x20B210DE"),
                    Map.entry("a100 80gb pcie", "0x20B510DE"),
                    Map.entry("a30", "0x20B710DE"),
                    Map.entry("h100 80gb hbm3", "0x233010DE"),
                    Map.entry("h100 pcie", "0x233110DE"),
                    Map.entry("h100 nvl", "0x232110DE"),
                    Map.entry("tesla t4", "0x1EB810DE"),
                    Map.entry("l4", "0x27B810DE"));

    private ProductDeviceIds() {}

    /** The PCI device id of the part NVML names {@code productName}, if it is listed. */
    public static Optional<String> forProduct(String productName) {
        if (productName == null) {
            return Optional.empty();
        }
        String key = productName.strip().toLowerCase(Locale.ROOT);
        if (key.startsWith(PREFIX)) {
            key = key.substring(PREFIX.length());
        }
        return Optional.ofNullable(IDS.get(key));
    }
}
