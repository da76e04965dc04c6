package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/**
 * The desired state of the GPU stack on every GPU node. Field names follow the upstream NVIDIA GPU
 * Operator; unknown fields are kept and reported as warnings in status.
 */
public class ClusterPolicySpec extends UnknownFieldsPreserving {
    @JsonProperty("operator")
    @JsonPropertyDescription("Settings of the operator itself.")
    @Required
    private OperatorSpec operator;

    @JsonProperty("daemonsets")
    @JsonPropertyDescription("Settings shared by every operand DaemonSet.")
    @Required
    private DaemonsetsSpec daemonsets;

    @JsonProperty("driver")
    @JsonPropertyDescription("The NVIDIA driver. Enabled by default.")
    @Required
    private DriverSpec driver;

    @JsonProperty("toolkit")
    @JsonPropertyDescription("The NVIDIA container toolkit. Enabled by default.")
    @Required
    private ToolkitSpec toolkit;

    @JsonProperty("devicePlugin")
    @JsonPropertyDescription("The device plugin. Enabled by default.")
    @Required
    private DevicePluginSpec devicePlugin;

    @JsonProperty("dcgmExporter")
    @JsonPropertyDescription("The DCGM exporter. Enabled by default.")
    @Required
    private DcgmExporterSpec dcgmExporter;

    @JsonProperty("dcgm")
    @JsonPropertyDescription("The standalone DCGM host engine.")
    @Required
    private DcgmSpec dcgm;

    @JsonProperty("nodeStatusExporter")
    @JsonPropertyDescription("The node status exporter. Disabled by default.")
    @Required
    private NodeStatusExporterSpec nodeStatusExporter;

    @JsonProperty("gfd")
    @JsonPropertyDescription("GPU feature discovery. Enabled by default.")
    @Required
    private GpuFeatureDiscoverySpec gfd;

    @JsonProperty("mig")
    @JsonPropertyDescription("How MIG devices are exposed.")
    private MigSpec mig;

    @JsonProperty("migManager")
    @JsonPropertyDescription("The MIG manager.")
    private MigManagerSpec migManager;

    @JsonProperty("psp")
    @JsonPropertyDescription("Deprecated and ignored.")
    private PspSpec psp;

    @JsonProperty("psa")
    @JsonPropertyDescription("Pod Security Admission labels on the operator namespace.")
    private PsaSpec psa;

    @JsonProperty("validator")
    @JsonPropertyDescription("The operator validator.")
    private ValidatorSpec validator;

    @JsonProperty("gds")
    @JsonPropertyDescription("GPUDirect Storage.")
    private GdsSpec gds;

    @JsonProperty("gdrcopy")
    @JsonPropertyDescription("GDRCopy.")
    private GdrCopySpec gdrcopy;

    @JsonProperty("sandboxWorkloads")
    @JsonPropertyDescription("GPUs for virtual machines.")
    private SandboxWorkloadsSpec sandboxWorkloads;

    @JsonProperty("vfioManager")
    @JsonPropertyDescription("The VFIO manager.")
    private VfioManagerSpec vfioManager;

    @JsonProperty("sandboxDevicePlugin")
    @JsonPropertyDescription("The sandbox device plugin.")
    private SandboxDevicePluginSpec sandboxDevicePlugin;

    @JsonProperty("vgpuManager")
    @JsonPropertyDescription("The vGPU manager.")
    private VgpuManagerSpec vgpuManager;

    @JsonProperty("vgpuDeviceManager")
    @JsonPropertyDescription("The vGPU device manager.")
    private VgpuDeviceManagerSpec vgpuDeviceManager;

    @JsonProperty("cdi")
    @JsonPropertyDescription("Container Device Interface.")
    private CdiSpec cdi;

    @JsonProperty("kataManager")
    @JsonPropertyDescription("Deprecated: the Kata manager.")
    private KataManagerSpec kataManager;

    @JsonProperty("ccManager")
    @JsonPropertyDescription("The confidential computing manager.")
    private CcManagerSpec ccManager;

    @JsonProperty("hostPaths")
    @JsonPropertyDescription("Where things are on the GPU nodes.")
    private HostPathsSpec hostPaths;

    @JsonProperty("kataSandboxDevicePlugin")
    @JsonPropertyDescription("The Kata sandbox device plugin.")
    private KataDevicePluginSpec kataSandboxDevicePlugin;

    @JsonProperty("simulation")
    @JsonPropertyDescription(
            "Simulated GPUs for clusters without GPUs (kind, tests); a field of this project, not of the upstream operator. When enabled, nodes labelled <nodeLabel>=true are GPU nodes with the simulated GPU profile, and every operand runs over a simulated GPU inventory there.")
    private SimulationSpec simulation;

    public OperatorSpec getOperator() {
        return operator;
    }

    public void setOperator(OperatorSpec operator) {
        this.operator = operator;
    }

    public DaemonsetsSpec getDaemonsets() {
        return daemonsets;
    }

    public void setDaemonsets(DaemonsetsSpec daemonsets) {
        this.daemonsets = daemonsets;
    }

    public DriverSpec getDriver() {
        return driver;
    }

    public void setDriver(DriverSpec driver) {
        this.driver = driver;
    }

    public ToolkitSpec getToolkit() {
        return toolkit;
    }

    public void setToolkit(ToolkitSpec toolkit) {
        this.toolkit = toolkit;
    }

    public DevicePluginSpec getDevicePlugin() {
        return devicePlugin;
    }

    public void setDevicePlugin(DevicePluginSpec devicePlugin) {
        this.devicePlugin = devicePlugin;
    }

    public DcgmExporterSpec getDcgmExporter() {
        return dcgmExporter;
    }

    public void setDcgmExporter(DcgmExporterSpec dcgmExporter) {
        this.dcgmExporter = dcgmExporter;
    }

    public DcgmSpec getDcgm() {
        return dcgm;
    }

    public void setDcgm(DcgmSpec dcgm) {
        this.dcgm = dcgm;
    }

    public NodeStatusExporterSpec getNodeStatusExporter() {
        return nodeStatusExporter;
    }

    public void setNodeStatusExporter(NodeStatusExporterSpec nodeStatusExporter) {
        this.nodeStatusExporter = nodeStatusExporter;
    }

    public GpuFeatureDiscoverySpec getGfd() {
        return gfd;
    }

    public void setGfd(GpuFeatureDiscoverySpec gfd) {
        this.gfd = gfd;
    }

    public MigSpec getMig() {
        return mig;
    }

    public void setMig(MigSpec mig) {
        this.mig = mig;
    }

    public MigManagerSpec getMigManager() {
        return migManager;
    }

    public void setMigManager(MigManagerSpec migManager) {
        this.migManager = migManager;
    }

    public PspSpec getPsp() {
        return psp;
    }

    public void setPsp(PspSpec psp) {
        this.psp = psp;
    }

    public PsaSpec getPsa() {
        return psa;
    }

    public void setPsa(PsaSpec psa) {
        this.psa = psa;
    }

    public ValidatorSpec getValidator() {
        return validator;
    }

    public void setValidator(ValidatorSpec validator) {
        this.validator = validator;
    }

    public GdsSpec getGds() {
        return gds;
    }

    public void setGds(GdsSpec gds) {
        this.gds = gds;
    }

    public GdrCopySpec getGdrcopy() {
        return gdrcopy;
    }

    public void setGdrcopy(GdrCopySpec gdrcopy) {
        this.gdrcopy = gdrcopy;
    }

    public SandboxWorkloadsSpec getSandboxWorkloads() {
        return sandboxWorkloads;
    }

    public void setSandboxWorkloads(SandboxWorkloadsSpec sandboxWorkloads) {
        this.sandboxWorkloads = sandboxWorkloads;
    }

    public VfioManagerSpec getVfioManager() {
        return vfioManager;
    }

    public void setVfioManager(VfioManagerSpec vfioManager) {
        this.vfioManager = vfioManager;
    }

    public SandboxDevicePluginSpec getSandboxDevicePlugin() {
        return sandboxDevicePlugin;
    }

    public void setSandboxDevicePlugin(SandboxDevicePluginSpec sandboxDevicePlugin) {
        this.sandboxDevicePlugin = sandboxDevicePlugin;
    }

    public VgpuManagerSpec getVgpuManager() {
        return vgpuManager;
    }

    public void setVgpuManager(VgpuManagerSpec vgpuManager) {
        this.vgpuManager = vgpuManager;
    }

    public VgpuDeviceManagerSpec getVgpuDeviceManager() {
        return vgpuDeviceManager;
    }

    public void setVgpuDeviceManager(VgpuDeviceManagerSpec vgpuDeviceManager) {
        this.vgpuDeviceManager = vgpuDeviceManager;
    }

    public CdiSpec getCdi() {
        return cdi;
    }

    public void setCdi(CdiSpec cdi) {
        this.cdi = cdi;
    }

    public KataManagerSpec getKataManager() {
        return kataManager;
    }

    public void setKataManager(KataManagerSpec kataManager) {
        this.kataManager = kataManager;
    }

    public CcManagerSpec getCcManager() {
        return ccManager;
    }

    public void setCcManager(CcManagerSpec ccManager) {
        this.ccManager = ccManager;
    }

    public HostPathsSpec getHostPaths() {
        return hostPaths;
    }

    public void setHostPaths(HostPathsSpec hostPaths) {
        this.hostPaths = hostPaths;
    }

    public KataDevicePluginSpec getKataSandboxDevicePlugin() {
        return kataSandboxDevicePlugin;
    }

    public void setKataSandboxDevicePlugin(KataDevicePluginSpec kataSandboxDevicePlugin) {
        this.kataSandboxDevicePlugin = kataSandboxDevicePlugin;
    }

    public SimulationSpec getSimulation() {
        return simulation;
    }

    public void setSimulation(SimulationSpec simulation) {
        this.simulation = simulation;
    }
}
