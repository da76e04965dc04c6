package org.gpuoperator.exporter.metrics;

/**
 * Label keys exactly as upstream dcgm-exporter writes them: dashboards and alerts join on these.
 */
public final class LabelNames {
    public static final String GPU = "gpu";
    public static final String UUID = "UUID";
    public static final String PCI_BUS_ID = "pci_bus_id";
    public static final String DEVICE = "device";
    public static final String MODEL_NAME = "modelName";
    public static final String GPU_I_PROFILE = "GPU_I_PROFILE";
    public static final String GPU_I_ID = "GPU_I_ID";

    /** Up to upstream 4.5.3-4.8.2; most dashboards use it. */
    public static final String HOSTNAME_LEGACY = "Hostname";

    /** Upstream after PR #655. */
    public static final String HOSTNAME = "hostname";

    public static final String POD = "pod";
    public static final String NAMESPACE = "namespace";
    public static final String CONTAINER = "container";

    private LabelNames() {}
}
