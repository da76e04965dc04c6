package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * What {@code spec.devicePlugin.config} sets in the device plugin and feature discovery: the
 * ConfigMap of named configs mounted at {@value #MOUNT_DIR} and the agents' variables {@code
 * CONFIG_FILE_SRCDIR} and {@code DEFAULT_CONFIG} (the names of upstream's config-manager). The
 * agents themselves watch their node's {@code nvidia.com/device-plugin.config} label, so a label
 * change needs no new pod, while a new ConfigMap name or default rolls the pods.
 */
final class PluginConfigWiring {

    static final String MOUNT_DIR = "/available-configs";
    static final String VOLUME = "available-configs";
    static final String SRCDIR_ENV = "CONFIG_FILE_SRCDIR";
    static final String DEFAULT_ENV = "DEFAULT_CONFIG";

    private PluginConfigWiring() {}

    static List<Volume> volumes(PolicySettings policy) {
        PolicySettings.PluginConfig c = policy.pluginConfig();
        if (!c.enabled()) {
            return List.of();
        }
        return List.of(
                new VolumeBuilder()
                        .withName(VOLUME)
                        .withNewConfigMap()
                        .withName(c.name())
                        .endConfigMap()
                        .build());
    }

    static List<VolumeMount> mounts(PolicySettings policy) {
        if (!policy.pluginConfig().enabled()) {
            return List.of();
        }
        return List.of(
                new VolumeMountBuilder()
                        .withName(VOLUME)
                        .withMountPath(MOUNT_DIR)
                        .withReadOnly(true)
                        .build());
    }

    static List<EnvVar> env(PolicySettings policy) {
        PolicySettings.PluginConfig c = policy.pluginConfig();
        List<EnvVar> env = new ArrayList<>();
        if (c.enabled()) {
            env.add(OperandModel.env(SRCDIR_ENV, MOUNT_DIR));
            if (c.defaultName() != null) {
                env.add(OperandModel.env(DEFAULT_ENV, c.defaultName()));
            }
        }
        return env;
    }
}
