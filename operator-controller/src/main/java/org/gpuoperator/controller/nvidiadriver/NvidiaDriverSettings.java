package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.defaults.UpstreamImages;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The ClusterPolicy's settings with an NVIDIADriver's on top (pure): what the NVIDIADriver sets
 * wins for its DaemonSets, what it leaves out comes from the ClusterPolicy's driver and daemonsets
 * sections. Read: repository, image, version, imagePullPolicy, imagePullSecrets, args, env,
 * resources, kernelModuleType; labels and annotations (added to the pods'), tolerations and
 * priorityClassName (replacing the daemonsets section's).
 */
public final class NvidiaDriverSettings {

    private NvidiaDriverSettings() {}

    public static PolicySettings apply(PolicySettings base, NVIDIADriverSpec spec) {
        if (spec == null) {
            return base;
        }
        OperandSettings d = base.operand(Operand.DRIVER);
        String repository = or(spec.getRepository(), d.repository());
        String image = or(spec.getImage(), d.image());
        String version = or(spec.getVersion(), d.version());
        // NVIDIA's driver image: the driver agent's of the same version
        var mapped = upstreamImage(spec);
        if (mapped.isPresent()) {
            repository = mapped.get().repository();
            image = mapped.get().image();
            version = mapped.get().version();
        }
        OperandSettings driver =
                new OperandSettings(
                        d.enabled(),
                        repository,
                        image,
                        version,
                        spec.getImagePullPolicy() == null
                                ? d.imagePullPolicy()
                                : json(spec.getImagePullPolicy()),
                        spec.getImagePullSecrets() == null
                                ? d.imagePullSecrets()
                                : spec.getImagePullSecrets(),
                        spec.getArgs() == null ? d.args() : spec.getArgs(),
                        spec.getEnv() == null
                                ? d.env()
                                : spec.getEnv().stream()
                                        .map(e -> new EnvVar(e.getName(), e.getValue(), null))
                                        .toList(),
                        spec.getResources() == null
                                ? d.resources()
                                : Serialization.jsonMapper()
                                        .convertValue(
                                                spec.getResources(), ResourceRequirements.class));
        PolicySettings.NodeReadiness r = base.nodeReadiness();
        PolicySettings.NodeReadiness readiness =
                new PolicySettings.NodeReadiness(
                        spec.getVersion() == null
                                ? r.driverVersion()
                                : ClusterPolicySettings.driverVersion(spec.getVersion()),
                        r.validatorEnv(),
                        r.gpuNotReadyTaint(),
                        spec.getKernelModuleType() == null
                                ? r.kernelModuleType()
                                : spec.getKernelModuleType().jsonValue());
        DaemonSetSettings ds = base.daemonsets();
        Map<String, String> labels = new LinkedHashMap<>(ds.labels());
        if (spec.getLabels() != null) {
            labels.putAll(spec.getLabels());
        }
        Map<String, String> annotations = new LinkedHashMap<>(ds.annotations());
        if (spec.getAnnotations() != null) {
            annotations.putAll(spec.getAnnotations());
        }
        DaemonSetSettings daemonSets =
                new DaemonSetSettings(
                        labels,
                        annotations,
                        spec.getTolerations() == null ? ds.tolerations() : spec.getTolerations(),
                        or(spec.getPriorityClassName(), ds.priorityClassName()),
                        ds.updateStrategy(),
                        ds.maxUnavailable());
        return base.withOperand(Operand.DRIVER, driver)
                .withNodeReadiness(readiness)
                .withDaemonSets(daemonSets);
    }

    /**
     * NVIDIA's driver image named by the NVIDIADriver (repository, image and version, or a full
     * reference in image), mapped to the driver agent's of the same version; empty when it names
     * another image or none.
     */
    public static Optional<UpstreamImages.Mapped> upstreamImage(NVIDIADriverSpec spec) {
        if (spec == null || (spec.getRepository() == null && spec.getImage() == null)) {
            return Optional.empty();
        }
        return UpstreamImages.map(
                "spec.image",
                ClusterPolicyDefaults.DRIVER_IMAGE,
                spec.getRepository(),
                spec.getImage(),
                spec.getVersion());
    }

    private static String or(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }

    private static String json(Enum<?> value) {
        return Serialization.jsonMapper().convertValue(value, String.class);
    }
}
