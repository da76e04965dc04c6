package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.common.DriverSettings;

/**
 * The NVIDIA driver operand: kernel modules loaded and the driver usable on each GPU node. Enabled
 * by default; set enabled=false where the driver is pre-installed on the hosts. The fields it
 * shares with an NVIDIADriver (kernel module type, probes, RDMA, upgrade policy, driver manager,
 * secretEnv) come from {@link DriverSettings}.
 */
public class DriverSpec extends ComponentSpec implements DriverSettings {
    private final DriverSettings.Values driverSettings = new DriverSettings.Values();

    @JsonProperty("useNvidiaDriverCRD")
    @JsonPropertyDescription(
            "Manage drivers through NVIDIADriver resources instead of this section.")
    private Boolean useNvidiaDriverCRD;

    @JsonProperty("usePrecompiled")
    @JsonPropertyDescription("Use precompiled driver images (tag <version>-<kernel>).")
    private Boolean usePrecompiled;

    @JsonProperty("useOpenKernelModules")
    @JsonPropertyDescription("Deprecated: use kernelModuleType=open.")
    private Boolean useOpenKernelModules;

    @JsonProperty("repoConfig")
    @JsonPropertyDescription("Custom package repositories.")
    private DriverRepoConfigSpec repoConfig;

    @JsonProperty("certConfig")
    @JsonPropertyDescription("Custom certificates.")
    private DriverCertConfigSpec certConfig;

    @JsonProperty("licensingConfig")
    @JsonPropertyDescription("vGPU licensing.")
    private DriverLicensingConfigSpec licensingConfig;

    @JsonProperty("virtualTopology")
    @JsonPropertyDescription("vGPU virtual topology.")
    private VirtualTopologyConfigSpec virtualTopology;

    @JsonProperty("kernelModuleConfig")
    @JsonPropertyDescription("Kernel module parameters.")
    private KernelModuleConfigSpec kernelModuleConfig;

    @Override
    public DriverSettings.Values driverSettings() {
        return driverSettings;
    }

    public Boolean getUseNvidiaDriverCRD() {
        return useNvidiaDriverCRD;
    }

    public void setUseNvidiaDriverCRD(Boolean useNvidiaDriverCRD) {
        this.useNvidiaDriverCRD = useNvidiaDriverCRD;
    }

    public Boolean getUsePrecompiled() {
        return usePrecompiled;
    }

    public void setUsePrecompiled(Boolean usePrecompiled) {
        this.usePrecompiled = usePrecompiled;
    }

    public Boolean getUseOpenKernelModules() {
        return useOpenKernelModules;
    }

    public void setUseOpenKernelModules(Boolean useOpenKernelModules) {
        this.useOpenKernelModules = useOpenKernelModules;
    }

    public DriverRepoConfigSpec getRepoConfig() {
        return repoConfig;
    }

    public void setRepoConfig(DriverRepoConfigSpec repoConfig) {
        this.repoConfig = repoConfig;
    }

    public DriverCertConfigSpec getCertConfig() {
        return certConfig;
    }

    public void setCertConfig(DriverCertConfigSpec certConfig) {
        this.certConfig = certConfig;
    }

    public DriverLicensingConfigSpec getLicensingConfig() {
        return licensingConfig;
    }

    public void setLicensingConfig(DriverLicensingConfigSpec licensingConfig) {
        this.licensingConfig = licensingConfig;
    }

    public VirtualTopologyConfigSpec getVirtualTopology() {
        return virtualTopology;
    }

    public void setVirtualTopology(VirtualTopologyConfigSpec virtualTopology) {
        this.virtualTopology = virtualTopology;
    }

    public KernelModuleConfigSpec getKernelModuleConfig() {
        return kernelModuleConfig;
    }

    public void setKernelModuleConfig(KernelModuleConfigSpec kernelModuleConfig) {
        this.kernelModuleConfig = kernelModuleConfig;
    }
}
