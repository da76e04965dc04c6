package org.gpuoperator.api.defaults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Toleration;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.common.ContainerProbeSpec;
import org.gpuoperator.api.common.DrainSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.ImagePullPolicy;
import org.gpuoperator.api.common.ImageSpec;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.common.PodDeletionSpec;
import org.gpuoperator.api.common.WaitForCompletionSpec;
import org.gpuoperator.api.v1.CcManagerSpec;
import org.gpuoperator.api.v1.CdiSpec;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.DcgmSpec;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.GdrCopySpec;
import org.gpuoperator.api.v1.GdsSpec;
import org.gpuoperator.api.v1.GpuFeatureDiscoverySpec;
import org.gpuoperator.api.v1.HostPathsSpec;
import org.gpuoperator.api.v1.KataDevicePluginSpec;
import org.gpuoperator.api.v1.KataManagerSpec;
import org.gpuoperator.api.v1.MigManagerSpec;
import org.gpuoperator.api.v1.MigSpec;
import org.gpuoperator.api.v1.MigStrategy;
import org.gpuoperator.api.v1.NodeStatusExporterSpec;
import org.gpuoperator.api.v1.OperatorSpec;
import org.gpuoperator.api.v1.PsaSpec;
import org.gpuoperator.api.v1.PspSpec;
import org.gpuoperator.api.v1.RollingUpdateSpec;
import org.gpuoperator.api.v1.SandboxDevicePluginSpec;
import org.gpuoperator.api.v1.SandboxMode;
import org.gpuoperator.api.v1.SandboxWorkloadType;
import org.gpuoperator.api.v1.SandboxWorkloadsSpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.ToolkitSpec;
import org.gpuoperator.api.v1.UpdateStrategyType;
import org.gpuoperator.api.v1.ValidatorSpec;
import org.gpuoperator.api.v1.VfioManagerSpec;
import org.gpuoperator.api.v1.VgpuDeviceManagerSpec;
import org.gpuoperator.api.v1.VgpuManagerSpec;

/**
 * The one place where ClusterPolicy defaults live. {@link #effective(ClusterPolicySpec)} is a pure
 * function: it returns a copy of the spec in which every section exists and every field the
 * operator acts on has a value, and never changes its input. Fields the user set always win, except
 * an image of NVIDIA's, which becomes this operator's ({@link UpstreamImages}); unknown fields are
 * carried over.
 */
public final class ClusterPolicyDefaults {
    /**
     * images/versions.properties, bundled by the build (api-crds pom): the one copy of the image
     * versions, so a release changes them in one file.
     */
    private static final Properties IMAGE_VERSIONS = loadImageVersions();

    /** Registry of this project's images. */
    public static final String REGISTRY = IMAGE_VERSIONS.getProperty("registry");

    public static final String DRIVER_IMAGE = "driver-agent";
    public static final String TOOLKIT_IMAGE = "toolkit-agent";
    public static final String DEVICE_PLUGIN_IMAGE = "device-plugin";
    public static final String GFD_IMAGE = "feature-discovery";
    public static final String DCGM_EXPORTER_IMAGE = "dcgm-exporter";
    public static final String VALIDATOR_IMAGE = "validator";
    public static final String MIG_MANAGER_IMAGE = "mig-manager";

    public static final String RUNTIME_CLASS = "nvidia";
    public static final String PRIORITY_CLASS = "system-node-critical";
    public static final String ROLLING_UPDATE_MAX_UNAVAILABLE = "1";
    public static final String UPGRADE_MAX_UNAVAILABLE = "25%";
    public static final int UPGRADE_MAX_PARALLEL = 1;
    public static final int POD_DELETION_TIMEOUT_SECONDS = 300;
    public static final int DRAIN_TIMEOUT_SECONDS = 300;
    public static final String TOOLKIT_INSTALL_DIR = "/usr/local/nvidia";
    public static final String HOST_ROOT_FS = "/";
    public static final String DRIVER_INSTALL_DIR = "/run/nvidia/driver";
    public static final String KUBELET_ROOT_DIR = "/var/lib/kubelet";
    public static final String SIMULATION_PROFILE = "h100-80gb-x8";
    public static final String SIMULATION_NODE_LABEL = "gpuoperator.org/simulated-gpu";
    public static final String UPDATE_STRATEGY = "RollingUpdate";

    /**
     * The taint GPU nodes commonly carry; every operand pod tolerates it unless the policy lists
     * its own.
     */
    public static final String GPU_TAINT_KEY = "nvidia.com/gpu";

    // A private mapper: the deep copy must not depend on how callers configured theirs.
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private ClusterPolicyDefaults() {}

    /**
     * The released version of one of this project's images (a component name of
     * images/versions.properties).
     */
    public static String imageVersion(String image) {
        String version = IMAGE_VERSIONS.getProperty(image);
        if (version == null) {
            throw new IllegalArgumentException(
                    "images/versions.properties has no version of " + image);
        }
        return version;
    }

    /** {@code registry/image:version} of one of this project's images. */
    public static String imageReference(String image) {
        return REGISTRY + "/" + image + ":" + imageVersion(image);
    }

    /** Tolerations of every operand pod when {@code daemonsets.tolerations} is not set. */
    public static List<Toleration> tolerations() {
        return List.of(new Toleration("NoSchedule", GPU_TAINT_KEY, "Exists", null, null));
    }

    private static Properties loadImageVersions() {
        Properties versions = new Properties();
        try (InputStream in =
                ClusterPolicyDefaults.class.getResourceAsStream("versions.properties")) {
            if (in == null) {
                throw new IllegalStateException(
                        "versions.properties is missing from the api-crds jar: see its pom");
            }
            versions.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return versions;
    }

    /**
     * The spec the operator acts on.
     *
     * @param spec the spec as written; may be null (then all defaults)
     * @return a new spec with every section present and defaults filled in; {@code spec} is left as
     *     it was
     */
    public static ClusterPolicySpec effective(ClusterPolicySpec spec) {
        ClusterPolicySpec result = spec == null ? new ClusterPolicySpec() : deepCopy(spec);
        // before the defaults: a replaced image takes this operator's repository and version
        UpstreamImages.replaceAll(result);

        OperatorSpec operator =
                section(result.getOperator(), OperatorSpec::new, result::setOperator);
        operator.setRuntimeClass(orDefault(operator.getRuntimeClass(), RUNTIME_CLASS));

        DaemonsetsSpec daemonsets =
                section(result.getDaemonsets(), DaemonsetsSpec::new, result::setDaemonsets);
        daemonsets.setPriorityClassName(
                orDefault(daemonsets.getPriorityClassName(), PRIORITY_CLASS));
        daemonsets.setUpdateStrategy(
                orDefault(daemonsets.getUpdateStrategy(), UpdateStrategyType.ROLLING_UPDATE));
        if (daemonsets.getUpdateStrategy() == UpdateStrategyType.ROLLING_UPDATE) {
            RollingUpdateSpec rolling =
                    section(
                            daemonsets.getRollingUpdate(),
                            RollingUpdateSpec::new,
                            daemonsets::setRollingUpdate);
            rolling.setMaxUnavailable(
                    orDefault(rolling.getMaxUnavailable(), ROLLING_UPDATE_MAX_UNAVAILABLE));
        }

        DriverSpec driver =
                operand(result.getDriver(), DriverSpec::new, result::setDriver, DRIVER_IMAGE);
        driver.setKernelModuleType(orDefault(driver.getKernelModuleType(), KernelModuleType.AUTO));
        driver.setUsePrecompiled(orDefault(driver.getUsePrecompiled(), false));
        driver.setUseNvidiaDriverCRD(orDefault(driver.getUseNvidiaDriverCRD(), false));
        ContainerProbeSpec startup =
                section(driver.getStartupProbe(), ContainerProbeSpec::new, driver::setStartupProbe);
        probe(startup, 60, 60, 10, 1, 120);
        applyUpgradePolicy(
                section(
                        driver.getUpgradePolicy(),
                        DriverUpgradePolicySpec::new,
                        driver::setUpgradePolicy));

        ToolkitSpec toolkit =
                operand(result.getToolkit(), ToolkitSpec::new, result::setToolkit, TOOLKIT_IMAGE);
        toolkit.setInstallDir(orDefault(toolkit.getInstallDir(), TOOLKIT_INSTALL_DIR));

        operand(
                result.getDevicePlugin(),
                DevicePluginSpec::new,
                result::setDevicePlugin,
                DEVICE_PLUGIN_IMAGE);
        operand(result.getGfd(), GpuFeatureDiscoverySpec::new, result::setGfd, GFD_IMAGE);
        operand(
                result.getDcgmExporter(),
                DcgmExporterSpec::new,
                result::setDcgmExporter,
                DCGM_EXPORTER_IMAGE);
        operand(result.getValidator(), ValidatorSpec::new, result::setValidator, VALIDATOR_IMAGE);
        operand(
                result.getMigManager(),
                MigManagerSpec::new,
                result::setMigManager,
                MIG_MANAGER_IMAGE);

        // Operands this project does not implement: present, with enabled made explicit, images
        // left as written.
        component(result.getDcgm(), DcgmSpec::new, result::setDcgm);
        component(
                result.getNodeStatusExporter(),
                NodeStatusExporterSpec::new,
                result::setNodeStatusExporter);
        component(result.getGds(), GdsSpec::new, result::setGds);
        component(result.getGdrcopy(), GdrCopySpec::new, result::setGdrcopy);
        component(result.getVfioManager(), VfioManagerSpec::new, result::setVfioManager);
        component(
                result.getSandboxDevicePlugin(),
                SandboxDevicePluginSpec::new,
                result::setSandboxDevicePlugin);
        component(result.getVgpuManager(), VgpuManagerSpec::new, result::setVgpuManager);
        component(
                result.getVgpuDeviceManager(),
                VgpuDeviceManagerSpec::new,
                result::setVgpuDeviceManager);
        component(result.getKataManager(), KataManagerSpec::new, result::setKataManager);
        component(result.getCcManager(), CcManagerSpec::new, result::setCcManager);
        component(
                result.getKataSandboxDevicePlugin(),
                KataDevicePluginSpec::new,
                result::setKataSandboxDevicePlugin);

        MigSpec mig = section(result.getMig(), MigSpec::new, result::setMig);
        mig.setStrategy(orDefault(mig.getStrategy(), MigStrategy.SINGLE));

        PspSpec psp = section(result.getPsp(), PspSpec::new, result::setPsp);
        psp.setEnabled(orDefault(psp.getEnabled(), false));
        PsaSpec psa = section(result.getPsa(), PsaSpec::new, result::setPsa);
        psa.setEnabled(orDefault(psa.getEnabled(), false));

        CdiSpec cdi = section(result.getCdi(), CdiSpec::new, result::setCdi);
        cdi.setEnabled(orDefault(cdi.getEnabled(), true));
        cdi.setNriPluginEnabled(orDefault(cdi.getNriPluginEnabled(), false));

        HostPathsSpec hostPaths =
                section(result.getHostPaths(), HostPathsSpec::new, result::setHostPaths);
        hostPaths.setRootFS(orDefault(hostPaths.getRootFS(), HOST_ROOT_FS));
        hostPaths.setDriverInstallDir(
                orDefault(hostPaths.getDriverInstallDir(), DRIVER_INSTALL_DIR));
        hostPaths.setKubeletRootDir(orDefault(hostPaths.getKubeletRootDir(), KUBELET_ROOT_DIR));

        SandboxWorkloadsSpec sandbox =
                section(
                        result.getSandboxWorkloads(),
                        SandboxWorkloadsSpec::new,
                        result::setSandboxWorkloads);
        sandbox.setEnabled(orDefault(sandbox.getEnabled(), false));
        sandbox.setDefaultWorkload(
                orDefault(sandbox.getDefaultWorkload(), SandboxWorkloadType.CONTAINER));
        sandbox.setMode(orDefault(sandbox.getMode(), SandboxMode.KUBEVIRT));

        SimulationSpec simulation =
                section(result.getSimulation(), SimulationSpec::new, result::setSimulation);
        simulation.setEnabled(orDefault(simulation.getEnabled(), false));
        simulation.setProfile(orDefault(simulation.getProfile(), SIMULATION_PROFILE));
        simulation.setNodeLabel(orDefault(simulation.getNodeLabel(), SIMULATION_NODE_LABEL));
        return result;
    }

    private static void applyUpgradePolicy(DriverUpgradePolicySpec policy) {
        policy.setAutoUpgrade(orDefault(policy.getAutoUpgrade(), false));
        policy.setMaxParallelUpgrades(
                orDefault(policy.getMaxParallelUpgrades(), UPGRADE_MAX_PARALLEL));
        policy.setMaxUnavailable(
                orDefault(policy.getMaxUnavailable(), new IntOrString(UPGRADE_MAX_UNAVAILABLE)));
        PodDeletionSpec podDeletion =
                section(policy.getPodDeletion(), PodDeletionSpec::new, policy::setPodDeletion);
        podDeletion.setForce(orDefault(podDeletion.getForce(), false));
        podDeletion.setTimeoutSeconds(
                orDefault(podDeletion.getTimeoutSeconds(), POD_DELETION_TIMEOUT_SECONDS));
        podDeletion.setDeleteEmptyDir(orDefault(podDeletion.getDeleteEmptyDir(), false));
        WaitForCompletionSpec wait =
                section(
                        policy.getWaitForCompletion(),
                        WaitForCompletionSpec::new,
                        policy::setWaitForCompletion);
        wait.setTimeoutSeconds(orDefault(wait.getTimeoutSeconds(), 0));
        DrainSpec drain = section(policy.getDrain(), DrainSpec::new, policy::setDrain);
        drain.setEnable(orDefault(drain.getEnable(), false));
        drain.setForce(orDefault(drain.getForce(), false));
        drain.setTimeoutSeconds(orDefault(drain.getTimeoutSeconds(), DRAIN_TIMEOUT_SECONDS));
        drain.setDeleteEmptyDir(orDefault(drain.getDeleteEmptyDir(), false));
    }

    private static void probe(
            ContainerProbeSpec probe,
            int initialDelay,
            int timeout,
            int period,
            int success,
            int failure) {
        probe.setInitialDelaySeconds(orDefault(probe.getInitialDelaySeconds(), initialDelay));
        probe.setTimeoutSeconds(orDefault(probe.getTimeoutSeconds(), timeout));
        probe.setPeriodSeconds(orDefault(probe.getPeriodSeconds(), period));
        probe.setSuccessThreshold(orDefault(probe.getSuccessThreshold(), success));
        probe.setFailureThreshold(orDefault(probe.getFailureThreshold(), failure));
    }

    /**
     * An operand this project ships: enabled made explicit, and this project's image unless the
     * user named another.
     */
    private static <T extends ComponentSpec> T operand(
            T current, Supplier<T> create, Consumer<T> set, String image) {
        T spec = component(current, create, set);
        applyImage(spec, image);
        spec.setImagePullPolicy(
                orDefault(spec.getImagePullPolicy(), ImagePullPolicy.IF_NOT_PRESENT));
        return spec;
    }

    private static <T extends ComponentSpec> T component(
            T current, Supplier<T> create, Consumer<T> set) {
        T spec = section(current, create, set);
        spec.setEnabled(spec.isEnabled());
        return spec;
    }

    /**
     * Fills repository, image and version from this project's defaults, except when the user gave a
     * full image path alone (upstream's rule: then it is used as written).
     */
    static void applyImage(ImageSpec spec, String defaultImage) {
        boolean fullPathAlone =
                spec.getImage() != null
                        && spec.getRepository() == null
                        && spec.getVersion() == null
                        && ImageSpec.isFullImagePath(spec.getImage());
        if (fullPathAlone) {
            return;
        }
        spec.setRepository(orDefault(spec.getRepository(), REGISTRY));
        spec.setImage(orDefault(spec.getImage(), defaultImage));
        spec.setVersion(orDefault(spec.getVersion(), imageVersion(defaultImage)));
    }

    private static <T> T section(T current, Supplier<T> create, Consumer<T> set) {
        if (current != null) {
            return current;
        }
        T created = create.get();
        set.accept(created);
        return created;
    }

    private static <T> T orDefault(T value, T defaultValue) {
        return value != null ? value : defaultValue;
    }

    /** A deep copy of the spec. */
    static ClusterPolicySpec copy(ClusterPolicySpec spec) {
        return deepCopy(spec);
    }

    private static ClusterPolicySpec deepCopy(ClusterPolicySpec spec) {
        try {
            return MAPPER.treeToValue(MAPPER.valueToTree(spec), ClusterPolicySpec.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot copy ClusterPolicy spec: " + e.getMessage(), e);
        }
    }
}
