package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.defaults.DefaultMigPartedConfig;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The MIG manager: applies the MIG layout named by its node's {@code nvidia.com/mig.config} label,
 * from the mig-parted config {@code migManager.config.name} (the operator's {@value
 * DefaultMigPartedConfig#CONFIG_MAP} unless the policy names its own), pausing the GPU clients
 * through their deploy labels meanwhile.
 */
final class MigManagerModel extends OperandModel {

    static final String CONFIG_DIR = "/mig-parted-config";
    static final String CONFIG_VOLUME = "mig-parted-config";

    MigManagerModel() {
        super(Operand.MIG_MANAGER);
    }

    /**
     * Its own Node: watched for the label, patched for the state and the clients' deploy labels;
     * the pods on it (a field selector on the node): the GPU pods that block a change, and the
     * paused clients' pods it waits for.
     */
    @Override
    List<PolicyRule> clusterRules() {
        return List.of(
                rule("", "nodes", "get", "list", "watch", "patch"), rule("", "pods", "list"));
    }

    /**
     * The readiness directory: where it publishes the layout in force and reads the toolkit's
     * acknowledgement that the CDI spec follows it.
     */
    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.validations(),
                new HostMount(
                        "run-nvidia-mig-manager",
                        REBOOT_DIR,
                        REBOOT_DIR,
                        "DirectoryOrCreate",
                        false,
                        null,
                        "the reboot sentinel it writes when a GPU needs a reset for a MIG mode"
                                + " change (WITH_REBOOT=true only), for kured or the admin's tooling"));
    }

    /** Where the MIG manager's reboot sentinel goes (mig-manager's HostReboot default). */
    static final String REBOOT_DIR = "/run/nvidia/mig-manager";

    /** NVML's MIG configuration needs the GPU's admin rights: privileged, as upstream. */
    @Override
    SecurityContext securityContext() {
        return new SecurityContextBuilder().withPrivileged(true).build();
    }

    @Override
    boolean usesGpuWithoutAllocation() {
        return true;
    }

    @Override
    boolean changesGpus() {
        return true;
    }

    @Override
    List<Volume> volumes(PolicySettings policy) {
        return List.of(
                new VolumeBuilder()
                        .withName(CONFIG_VOLUME)
                        .withNewConfigMap()
                        .withName(policy.migLayouts().name())
                        .endConfigMap()
                        .build());
    }

    @Override
    List<VolumeMount> volumeMounts(PolicySettings policy) {
        return List.of(
                new VolumeMountBuilder()
                        .withName(CONFIG_VOLUME)
                        .withMountPath(CONFIG_DIR)
                        .withReadOnly(true)
                        .build());
    }

    /**
     * Every GPU with the MIG configuration capability (what upstream's MIG manager asks the runtime
     * for), the config file and the default layout.
     */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>();
        env.add(env("NVIDIA_VISIBLE_DEVICES", "all"));
        env.add(env("NVIDIA_DRIVER_CAPABILITIES", NvmlAccess.ALL_CAPABILITIES));
        env.add(env("NVIDIA_MIG_CONFIG_DEVICES", "all"));
        env.add(env("CONFIG_FILE", CONFIG_DIR + "/" + DefaultMigPartedConfig.KEY));
        if (policy.cdi().enabled() && policy.enabled(Operand.CONTAINER_TOOLKIT)) {
            // the toolkit writes the CDI spec: wait for it to name the new MIG devices
            env.add(env("CDI_ENABLED", "true"));
        }
        if (policy.migLayouts().defaultName() != null) {
            env.add(env("DEFAULT_MIG_CONFIG", policy.migLayouts().defaultName()));
        }
        return env;
    }

    /** Upstream's named layouts, unless the policy names its own ConfigMap. */
    @Override
    List<HasMetadata> extraObjects(String namespace, PolicySettings policy) {
        if (!policy.migLayouts().operatorsConfigMap()) {
            return List.of();
        }
        ConfigMap config =
                new ConfigMapBuilder()
                        .withMetadata(
                                OperandObjects.meta(
                                        DefaultMigPartedConfig.CONFIG_MAP, namespace, operand()))
                        // without a final newline: render's YAML (a block scalar) drops it, and
                        // what render prints must read back as the object applied
                        .withData(
                                Map.of(
                                        DefaultMigPartedConfig.KEY,
                                        DefaultMigPartedConfig.text().stripTrailing()))
                        .build();
        return List.of(config);
    }

    @Override
    List<ObjectRef> extraObjectRefs(String namespace) {
        return List.of(
                new ObjectRef(ConfigMap.class, namespace, DefaultMigPartedConfig.CONFIG_MAP));
    }
}
