package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.Map;
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
        OperandSettings driver =
                new OperandSettings(
                        d.enabled(),
                        or(spec.getRepository(), d.repository()),
                        or(spec.getImage(), d.image()),
                        or(spec.getVersion(), d.version()),
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

    private static String or(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }

    private static String json(Enum<?> value) {
        return Serialization.jsonMapper().convertValue(value, String.class);
    }
}
