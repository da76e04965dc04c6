package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The model of each operand, and the objects they build, as pure functions of the policy settings.
 * The reconcile, the {@code render} command and the privilege audit all call this, so what an admin
 * reviews is what gets applied.
 */
public final class OperandModels {

    private static final Map<Operand, OperandModel> MODELS =
            new EnumMap<>(
                    Map.of(
                            Operand.DRIVER, new DriverModel(),
                            Operand.CONTAINER_TOOLKIT, new ToolkitModel(),
                            Operand.DEVICE_PLUGIN, new DevicePluginModel(),
                            Operand.GPU_FEATURE_DISCOVERY, new FeatureDiscoveryModel(),
                            Operand.DCGM_EXPORTER, new DcgmExporterModel(),
                            Operand.MIG_MANAGER, new MigManagerModel(),
                            Operand.VALIDATOR, new ValidatorModel()));

    private final Map<String, String> operatorEnv;

    /**
     * @param operatorEnv the operator's own environment, for {@code <OPERAND>_IMAGE} fallbacks
     */
    public OperandModels(Map<String, String> operatorEnv) {
        this.operatorEnv = Map.copyOf(operatorEnv);
    }

    public static OperandModel model(Operand operand) {
        return MODELS.get(operand);
    }

    /** RuntimeClass {@code nvidia} (name and handler from spec.operator.runtimeClass). */
    public RuntimeClass runtimeClass(PolicySettings policy) {
        return CdiWiring.runtimeClass(policy.runtimeClass(), policy.runtimeClass());
    }

    /**
     * Every RuntimeClass the policy asks for: {@code nvidia}, and with CDI on {@code nvidia-cdi}
     * and {@code nvidia-legacy}.
     */
    public List<RuntimeClass> runtimeClasses(PolicySettings policy) {
        List<RuntimeClass> all = new ArrayList<>();
        all.add(runtimeClass(policy));
        all.addAll(CdiWiring.runtimeClasses(policy));
        return List.copyOf(all);
    }

    /**
     * The RuntimeClasses the policy does not want (CDI off: {@code nvidia-cdi}, {@code
     * nvidia-legacy}).
     */
    public static List<ObjectRef> unwantedRuntimeClasses(PolicySettings policy) {
        return CdiWiring.runtimeClassRefs(policy);
    }

    /**
     * RBAC objects of enabled operands that this policy does not want: the device plugin's
     * ClusterRole and binding without {@code devicePlugin.config} (its node watch).
     */
    public static List<ObjectRef> unwantedRbac(PolicySettings policy) {
        List<ObjectRef> out = new java.util.ArrayList<>();
        for (Operand o : policy.enabledOperands()) {
            out.addAll(OperandObjects.unwantedClusterRole(model(o), policy));
        }
        return out;
    }

    /**
     * The exporter's ServiceMonitor when the exporter is enabled without {@code
     * dcgmExporter.serviceMonitor.enabled} (a disabled exporter's objects go with it).
     */
    public static List<ObjectRef> unwantedMonitors(PolicySettings policy, String namespace) {
        return policy.enabled(Operand.DCGM_EXPORTER) && !policy.exporterMonitor().enabled()
                ? List.of(DcgmExporterModel.monitorRef(namespace))
                : List.of();
    }

    /**
     * All objects of one enabled operand, in apply order.
     *
     * @throws IllegalArgumentException when no image can be resolved for it (the message names the
     *     spec section)
     */
    public List<HasMetadata> render(PolicySettings policy, Operand operand, String namespace) {
        String image =
                ImagePaths.resolve(
                        operand, operand.specSection(), policy.operand(operand), operatorEnv);
        return OperandObjects.build(model(operand), policy, namespace, image);
    }

    /**
     * The operand's DaemonSet placed as one of several (the driver DaemonSet of an NVIDIADriver
     * node pool): the same rendering as {@link #render}'s, with the placement's name, labels and
     * nodeSelector.
     *
     * @param specSection where the settings come from, for the error message
     * @throws IllegalArgumentException when no image can be resolved for it
     */
    public DaemonSet renderPlaced(
            PolicySettings policy,
            Operand operand,
            String namespace,
            String specSection,
            Placement placement) {
        String image =
                ImagePaths.resolve(operand, specSection, policy.operand(operand), operatorEnv);
        return DaemonSetSkeleton.build(model(operand), policy, namespace, image, placement);
    }

    /**
     * Kinds and names of the objects {@link #render} builds for the operand; a disabled operand's
     * are deleted.
     */
    public static List<ObjectRef> objectRefs(Operand operand, String namespace) {
        return OperandObjects.refs(model(operand), namespace);
    }

    /** Host paths the operand mounts under this policy, with the reason for each. */
    public static List<HostMount> hostMounts(PolicySettings policy, Operand operand) {
        return DaemonSetSkeleton.hostMounts(model(operand), policy);
    }

    /**
     * Host paths of one of the operand's DaemonSets (its own, or a companion's by name), with the
     * reason for each; those of the operand's own DaemonSet for any other name (a driver pool's).
     */
    public static List<HostMount> hostMounts(
            PolicySettings policy, Operand operand, String daemonSetName) {
        for (OperandModel companion : model(operand).companions()) {
            if (companion.daemonSetName().equals(daemonSetName)) {
                return DaemonSetSkeleton.hostMounts(companion, policy);
            }
        }
        return hostMounts(policy, operand);
    }

    /**
     * The names of the DaemonSets that come and go with the operand's own (the device plugin's MPS
     * control daemon, {@code nvidia-device-plugin-mps-control-daemon}); their pods carry {@code
     * app=<name>} and use the driver as the operand's do.
     */
    public static List<String> companionDaemonSets(Operand operand) {
        return model(operand).companions().stream().map(OperandModel::daemonSetName).toList();
    }
}
