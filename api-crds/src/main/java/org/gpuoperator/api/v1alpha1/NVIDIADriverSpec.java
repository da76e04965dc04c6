package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.ContainerProbeSpec;
import org.gpuoperator.api.common.DriverManagerSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.EnvVar;
import org.gpuoperator.api.common.GpuDirectRdmaSpec;
import org.gpuoperator.api.common.ImageSpec;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.common.ResourceRequirements;
import org.gpuoperator.api.v1.GdrCopySpec;
import org.gpuoperator.api.v1.GdsSpec;

/**
 * One driver configuration for a group of GPU nodes (heterogeneous drivers). Used only when
 * ClusterPolicy driver.useNvidiaDriverCRD is true.
 */
@ValidationRule(
        value =
                "!has(self.default) || !self.default || !has(self.nodeSelector) || size(self.nodeSelector) == 0",
        message = "a default NVIDIADriver must not have a nodeSelector")
public class NVIDIADriverSpec extends ImageSpec {
    @JsonProperty("default")
    @JsonPropertyDescription(
            "Use this driver on GPU nodes that no other NVIDIADriver selects. A default driver must not have a nodeSelector.")
    private Boolean defaultDriver;

    @JsonProperty("driverType")
    @JsonPropertyDescription("gpu, vgpu or vgpu-host-manager. Default gpu. Immutable.")
    @ValidationRule(value = "self == oldSelf", message = "driverType is immutable")
    private DriverType driverType;

    @JsonProperty("usePrecompiled")
    @JsonPropertyDescription("Use precompiled driver images. Immutable.")
    @ValidationRule(value = "self == oldSelf", message = "usePrecompiled is immutable")
    private Boolean usePrecompiled;

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

    @JsonProperty("gds")
    @JsonPropertyDescription("GPUDirect Storage sidecar.")
    private GdsSpec gds;

    @JsonProperty("gdrcopy")
    @JsonPropertyDescription("GDRCopy sidecar.")
    private GdrCopySpec gdrcopy;

    @JsonProperty("manager")
    @JsonPropertyDescription("The driver manager init container.")
    private DriverManagerSpec manager;

    @JsonProperty("resources")
    @JsonPropertyDescription("Compute resources of the driver container.")
    private ResourceRequirements resources;

    @JsonProperty("args")
    @JsonPropertyDescription("Extra arguments of the driver container.")
    private List<String> args;

    @JsonProperty("env")
    @JsonPropertyDescription("Extra environment variables of the driver container.")
    private List<EnvVar> env;

    @JsonProperty("repoConfig")
    @JsonPropertyDescription("ConfigMap with custom package repositories.")
    private DriverConfigRef repoConfig;

    @JsonProperty("certConfig")
    @JsonPropertyDescription("ConfigMap with custom certificates.")
    private DriverConfigRef certConfig;

    @JsonProperty("licensingConfig")
    @JsonPropertyDescription("vGPU licensing.")
    private LicensingConfigSpec licensingConfig;

    @JsonProperty("virtualTopologyConfig")
    @JsonPropertyDescription("ConfigMap with the vGPU virtual topology.")
    private DriverConfigRef virtualTopologyConfig;

    @JsonProperty("kernelModuleConfig")
    @JsonPropertyDescription("ConfigMap with kernel module parameters.")
    private DriverConfigRef kernelModuleConfig;

    @JsonProperty("secretEnv")
    @JsonPropertyDescription(
            "Secret whose keys become environment variables of the driver container.")
    private String secretEnv;

    @JsonProperty("upgradePolicy")
    @JsonPropertyDescription("How driver upgrades roll through the nodes.")
    private DriverUpgradePolicySpec upgradePolicy;

    @JsonProperty("nodeSelector")
    @JsonPropertyDescription(
            "Labels selecting the nodes this driver is for. Selectors of two NVIDIADrivers must not overlap.")
    private Map<String, String> nodeSelector;

    @JsonProperty("nodeAffinity")
    @JsonPropertyDescription("Node affinity of the driver pods.")
    private NodeAffinity nodeAffinity;

    @JsonProperty("labels")
    @JsonPropertyDescription("Labels of the driver pods.")
    private Map<String, String> labels;

    @JsonProperty("annotations")
    @JsonPropertyDescription("Annotations of the driver pods.")
    private Map<String, String> annotations;

    @JsonProperty("tolerations")
    @JsonPropertyDescription("Tolerations of the driver pods.")
    private List<Toleration> tolerations;

    @JsonProperty("priorityClassName")
    @JsonPropertyDescription("Priority class of the driver pods.")
    private String priorityClassName;

    @JsonProperty("podSecurityContext")
    @JsonPropertyDescription("Pod security context of the driver pods.")
    private PodSecurityContext podSecurityContext;

    @JsonProperty("hostNetwork")
    @JsonPropertyDescription("Run the driver pods in the host network namespace.")
    private Boolean hostNetwork;

    public Boolean getDefaultDriver() {
        return defaultDriver;
    }

    public void setDefaultDriver(Boolean defaultDriver) {
        this.defaultDriver = defaultDriver;
    }

    public DriverType getDriverType() {
        return driverType;
    }

    public void setDriverType(DriverType driverType) {
        this.driverType = driverType;
    }

    public Boolean getUsePrecompiled() {
        return usePrecompiled;
    }

    public void setUsePrecompiled(Boolean usePrecompiled) {
        this.usePrecompiled = usePrecompiled;
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

    public DriverManagerSpec getManager() {
        return manager;
    }

    public void setManager(DriverManagerSpec manager) {
        this.manager = manager;
    }

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
    }

    public List<String> getArgs() {
        return args;
    }

    public void setArgs(List<String> args) {
        this.args = args;
    }

    public List<EnvVar> getEnv() {
        return env;
    }

    public void setEnv(List<EnvVar> env) {
        this.env = env;
    }

    public DriverConfigRef getRepoConfig() {
        return repoConfig;
    }

    public void setRepoConfig(DriverConfigRef repoConfig) {
        this.repoConfig = repoConfig;
    }

    public DriverConfigRef getCertConfig() {
        return certConfig;
    }

    public void setCertConfig(DriverConfigRef certConfig) {
        this.certConfig = certConfig;
    }

    public LicensingConfigSpec getLicensingConfig() {
        return licensingConfig;
    }

    public void setLicensingConfig(LicensingConfigSpec licensingConfig) {
        this.licensingConfig = licensingConfig;
    }

    public DriverConfigRef getVirtualTopologyConfig() {
        return virtualTopologyConfig;
    }

    public void setVirtualTopologyConfig(DriverConfigRef virtualTopologyConfig) {
        this.virtualTopologyConfig = virtualTopologyConfig;
    }

    public DriverConfigRef getKernelModuleConfig() {
        return kernelModuleConfig;
    }

    public void setKernelModuleConfig(DriverConfigRef kernelModuleConfig) {
        this.kernelModuleConfig = kernelModuleConfig;
    }

    public String getSecretEnv() {
        return secretEnv;
    }

    public void setSecretEnv(String secretEnv) {
        this.secretEnv = secretEnv;
    }

    public DriverUpgradePolicySpec getUpgradePolicy() {
        return upgradePolicy;
    }

    public void setUpgradePolicy(DriverUpgradePolicySpec upgradePolicy) {
        this.upgradePolicy = upgradePolicy;
    }

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public NodeAffinity getNodeAffinity() {
        return nodeAffinity;
    }

    public void setNodeAffinity(NodeAffinity nodeAffinity) {
        this.nodeAffinity = nodeAffinity;
    }

    public Map<String, String> getLabels() {
        return labels;
    }

    public void setLabels(Map<String, String> labels) {
        this.labels = labels;
    }

    public Map<String, String> getAnnotations() {
        return annotations;
    }

    public void setAnnotations(Map<String, String> annotations) {
        this.annotations = annotations;
    }

    public List<Toleration> getTolerations() {
        return tolerations;
    }

    public void setTolerations(List<Toleration> tolerations) {
        this.tolerations = tolerations;
    }

    public String getPriorityClassName() {
        return priorityClassName;
    }

    public void setPriorityClassName(String priorityClassName) {
        this.priorityClassName = priorityClassName;
    }

    public PodSecurityContext getPodSecurityContext() {
        return podSecurityContext;
    }

    public void setPodSecurityContext(PodSecurityContext podSecurityContext) {
        this.podSecurityContext = podSecurityContext;
    }

    public Boolean getHostNetwork() {
        return hostNetwork;
    }

    public void setHostNetwork(Boolean hostNetwork) {
        this.hostNetwork = hostNetwork;
    }
}
