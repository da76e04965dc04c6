package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The driver fields that ClusterPolicy {@code spec.driver} and an NVIDIADriver's spec share, with
 * one name, type and description each. An interface rather than a base class because the two specs
 * have different superclasses ({@code DriverSpec} is a {@link ComponentSpec}, an NVIDIADriver has
 * no {@code enabled}); Jackson and the CRD generator read the properties from these default methods
 * as from any getter and setter. An implementation only holds the values: {@code private final
 * Values driverSettings = new Values();} returned by {@link #driverSettings()}.
 *
 * <p>Jackson writes properties that have no field in the order the JVM lists methods, which is not
 * fixed; implementations therefore write their properties in alphabetical order (as the CRD lists
 * them), so the same object always gives the same JSON.
 */
@JsonPropertyOrder(alphabetic = true)
public interface DriverSettings {

    /** The values of these fields in this object; not a property. */
    Values driverSettings();

    /** Storage for the fields, one per object. */
    final class Values {
        private KernelModuleType kernelModuleType;
        private ContainerProbeSpec startupProbe;
        private ContainerProbeSpec livenessProbe;
        private ContainerProbeSpec readinessProbe;
        private GpuDirectRdmaSpec rdma;
        private DriverUpgradePolicySpec upgradePolicy;
        private DriverManagerSpec manager;
        private String secretEnv;
    }

    @JsonProperty("kernelModuleType")
    @JsonPropertyDescription("Kernel module flavour: auto, open or proprietary. Default auto.")
    default KernelModuleType getKernelModuleType() {
        return driverSettings().kernelModuleType;
    }

    default void setKernelModuleType(KernelModuleType kernelModuleType) {
        driverSettings().kernelModuleType = kernelModuleType;
    }

    @JsonProperty("startupProbe")
    @JsonPropertyDescription("Startup probe of the driver container.")
    default ContainerProbeSpec getStartupProbe() {
        return driverSettings().startupProbe;
    }

    default void setStartupProbe(ContainerProbeSpec startupProbe) {
        driverSettings().startupProbe = startupProbe;
    }

    @JsonProperty("livenessProbe")
    @JsonPropertyDescription("Liveness probe of the driver container.")
    default ContainerProbeSpec getLivenessProbe() {
        return driverSettings().livenessProbe;
    }

    default void setLivenessProbe(ContainerProbeSpec livenessProbe) {
        driverSettings().livenessProbe = livenessProbe;
    }

    @JsonProperty("readinessProbe")
    @JsonPropertyDescription("Readiness probe of the driver container.")
    default ContainerProbeSpec getReadinessProbe() {
        return driverSettings().readinessProbe;
    }

    default void setReadinessProbe(ContainerProbeSpec readinessProbe) {
        driverSettings().readinessProbe = readinessProbe;
    }

    @JsonProperty("rdma")
    @JsonPropertyDescription("GPUDirect RDMA.")
    default GpuDirectRdmaSpec getRdma() {
        return driverSettings().rdma;
    }

    default void setRdma(GpuDirectRdmaSpec rdma) {
        driverSettings().rdma = rdma;
    }

    @JsonProperty("upgradePolicy")
    @JsonPropertyDescription("How driver upgrades roll through the nodes.")
    default DriverUpgradePolicySpec getUpgradePolicy() {
        return driverSettings().upgradePolicy;
    }

    default void setUpgradePolicy(DriverUpgradePolicySpec upgradePolicy) {
        driverSettings().upgradePolicy = upgradePolicy;
    }

    @JsonProperty("manager")
    @JsonPropertyDescription("The driver manager init container.")
    default DriverManagerSpec getManager() {
        return driverSettings().manager;
    }

    default void setManager(DriverManagerSpec manager) {
        driverSettings().manager = manager;
    }

    @JsonProperty("secretEnv")
    @JsonPropertyDescription(
            "Secret whose keys become environment variables of the driver container.")
    default String getSecretEnv() {
        return driverSettings().secretEnv;
    }

    default void setSecretEnv(String secretEnv) {
        driverSettings().secretEnv = secretEnv;
    }
}
