package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.ContainerSpec;
import org.gpuoperator.api.common.DriverSettings;
import org.gpuoperator.api.common.EnvVar;
import org.gpuoperator.api.common.PodSettings;
import org.gpuoperator.api.common.ResourceRequirements;
import org.gpuoperator.api.v1.GdrCopySpec;
import org.gpuoperator.api.v1.GdsSpec;

/**
 * One driver configuration for a group of GPU nodes (heterogeneous drivers). Used only when
 * ClusterPolicy driver.useNvidiaDriverCRD is true. The fields it shares with the ClusterPolicy are
 * declared once: image and container ({@link ContainerSpec}), driver ({@link DriverSettings}, as
 * {@code spec.driver}) and pod settings ({@link PodSettings}, as {@code spec.daemonsets}).
 */
@ValidationRule(
        value =
                "!has(self.default) || !self.default || !has(self.nodeSelector) || size(self.nodeSelector) == 0",
        message = "a default NVIDIADriver must not have a nodeSelector")
public class NVIDIADriverSpec extends ContainerSpec implements DriverSettings, PodSettings {
    private final DriverSettings.Values driverSettings = new DriverSettings.Values();
    private final PodSettings.Values podSettings = new PodSettings.Values();

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

    @JsonProperty("gds")
    @JsonPropertyDescription("GPUDirect Storage sidecar.")
    private GdsSpec gds;

    @JsonProperty("gdrcopy")
    @JsonPropertyDescription("GDRCopy sidecar.")
    private GdrCopySpec gdrcopy;

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

    @JsonProperty("nodeSelector")
    @JsonPropertyDescription(
            "Labels selecting the nodes this driver is for. Selectors of two NVIDIADrivers must not overlap.")
    private Map<String, String> nodeSelector;

    @JsonProperty("nodeAffinity")
    @JsonPropertyDescription("Node affinity of the driver pods.")
    private NodeAffinity nodeAffinity;

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

    @Override
    public DriverSettings.Values driverSettings() {
        return driverSettings;
    }

    @Override
    public PodSettings.Values podSettings() {
        return podSettings;
    }

    // ContainerSpec's and PodSettings' fields, described for the driver pods of this NVIDIADriver.

    @Override
    @JsonPropertyDescription("Compute resources of the driver container.")
    public ResourceRequirements getResources() {
        return super.getResources();
    }

    @Override
    @JsonPropertyDescription("Extra arguments of the driver container.")
    public List<String> getArgs() {
        return super.getArgs();
    }

    @Override
    @JsonPropertyDescription("Extra environment variables of the driver container.")
    public List<EnvVar> getEnv() {
        return super.getEnv();
    }

    @Override
    @JsonPropertyDescription("Run the driver pods in the host network namespace.")
    public Boolean getHostNetwork() {
        return super.getHostNetwork();
    }

    @Override
    @JsonPropertyDescription("Labels of the driver pods.")
    public Map<String, String> getLabels() {
        return PodSettings.super.getLabels();
    }

    @Override
    @JsonPropertyDescription("Annotations of the driver pods.")
    public Map<String, String> getAnnotations() {
        return PodSettings.super.getAnnotations();
    }

    @Override
    @JsonPropertyDescription("Tolerations of the driver pods.")
    public List<Toleration> getTolerations() {
        return PodSettings.super.getTolerations();
    }

    @Override
    @JsonPropertyDescription("Priority class of the driver pods.")
    public String getPriorityClassName() {
        return PodSettings.super.getPriorityClassName();
    }

    @Override
    @JsonPropertyDescription("Pod security context of the driver pods.")
    public PodSecurityContext getPodSecurityContext() {
        return PodSettings.super.getPodSecurityContext();
    }
}
