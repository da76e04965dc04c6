package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.common.ContainerProbeSpec;
import org.gpuoperator.api.common.DriverManagerSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.GpuDirectRdmaSpec;
import org.gpuoperator.api.common.KernelModuleType;

/**
 * The NVIDIA driver operand: kernel modules loaded and the driver usable on each GPU node. Enabled
 * by default; set enabled=false where the driver is pre-installed on the hosts.
 */
public class DriverSpec extends ComponentSpec {
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

    @JsonProperty("kernelModuleType")
    @JsonPropertyDescription("Kernel module flavour: auto, open or proprietary. Default auto.")
    private KernelModuleType kernelModuleType;

    @JsonProperty("startupProbe")
    @JsonPropertyDescription("Startup probe of the driver container.")
    private ContainerProbeSpec startupProbe;

    @JsonProperty("livenessProbe")
    @JsonPropertyDescription("Liveness probe of the driver container.")
    private ContainerProbeSpec livenessProbe;

    @JsonProperty("readinessProbe")
    @JsonPropertyDescription("Readiness probe of the driver container.")
    private ContainerProbeSpec readinessProbe;

    @JsonProperty("rdma")
    @JsonPropertyDescription("GPUDirect RDMA.")
    private GpuDirectRdmaSpec rdma;

    @JsonProperty("upgradePolicy")
    @JsonPropertyDescription("How driver upgrades roll through the nodes.")
    private DriverUpgradePolicySpec upgradePolicy;

    @JsonProperty("manager")
    @JsonPropertyDescription("The driver manager init container.")
    private DriverManagerSpec manager;

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

    @JsonProperty("secretEnv")
    @JsonPropertyDescription(
            "Secret whose keys become environment variables of the driver container.")
    private String secretEnv;

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

    public KernelModuleType getKernelModuleType() {
        return kernelModuleType;
    }

    public void setKernelModuleType(KernelModuleType kernelModuleType) {
        this.kernelModuleType = kernelModuleType;
    }

    public ContainerProbeSpec getStartupProbe() {
        return startupProbe;
    }

    public void setStartupProbe(ContainerProbeSpec startupProbe) {
        this.startupProbe = startupProbe;
    }

    public ContainerProbeSpec getLivenessProbe() {
        return livenessProbe;
    }

    public void setLivenessProbe(ContainerProbeSpec livenessProbe) {
        this.livenessProbe = livenessProbe;
    }

    public ContainerProbeSpec getReadinessProbe() {
        return readinessProbe;
    }

    public void setReadinessProbe(ContainerProbeSpec readinessProbe) {
        this.readinessProbe = readinessProbe;
    }

    public GpuDirectRdmaSpec getRdma() {
        return rdma;
    }

    public void setRdma(GpuDirectRdmaSpec rdma) {
        this.rdma = rdma;
    }

    public DriverUpgradePolicySpec getUpgradePolicy() {
        return upgradePolicy;
    }

    public void setUpgradePolicy(DriverUpgradePolicySpec upgradePolicy) {
        this.upgradePolicy = upgradePolicy;
    }

    public DriverManagerSpec getManager() {
        return manager;
    }

    public void setManager(DriverManagerSpec manager) {
        this.manager = manager;
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

    public String getSecretEnv() {
        return secretEnv;
    }

    public void setSecretEnv(String secretEnv) {
        this.secretEnv = secretEnv;
    }
}
