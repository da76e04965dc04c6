package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.HostPathsSpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.controller.operand.Operand;

/** Maps a (defaulted) ClusterPolicy spec onto the plain settings the renderer and the gate use. */
public final class ClusterPolicySettings {

    private ClusterPolicySettings() {}

    public static PolicySettings from(ClusterPolicySpec spec) {
        Map<Operand, OperandSettings> operands = new EnumMap<>(Operand.class);
        operands.put(Operand.DRIVER, operand(spec.getDriver()));
        operands.put(Operand.CONTAINER_TOOLKIT, operand(spec.getToolkit()));
        operands.put(Operand.DEVICE_PLUGIN, operand(spec.getDevicePlugin()));
        operands.put(Operand.GPU_FEATURE_DISCOVERY, operand(spec.getGfd()));
        operands.put(Operand.DCGM_EXPORTER, operand(spec.getDcgmExporter()));
        HostPathsSpec hostPaths = spec.getHostPaths();
        SimulationSpec sim = spec.getSimulation();
        return new PolicySettings(
                daemonSets(spec.getDaemonsets()),
                operands,
                spec.getOperator() == null ? null : spec.getOperator().getRuntimeClass(),
                hostPaths == null ? null : hostPaths.getKubeletRootDir(),
                spec.getToolkit() == null ? null : spec.getToolkit().getInstallDir(),
                spec.getMig() == null || spec.getMig().getStrategy() == null
                        ? null
                        : json(spec.getMig().getStrategy()),
                sim == null
                        ? null
                        : new PolicySettings.Simulation(
                                sim.isEnabled(), sim.getProfile(), sim.getNodeLabel()));
    }

    private static DaemonSetSettings daemonSets(DaemonsetsSpec d) {
        if (d == null) {
            return DaemonSetSettings.defaults();
        }
        DaemonSetSettings defaults = DaemonSetSettings.defaults();
        return new DaemonSetSettings(
                d.getLabels(),
                d.getAnnotations(),
                d.getTolerations() == null ? defaults.tolerations() : d.getTolerations(),
                d.getPriorityClassName() == null
                        ? defaults.priorityClassName()
                        : d.getPriorityClassName(),
                d.getUpdateStrategy() == null ? null : json(d.getUpdateStrategy()),
                d.getRollingUpdate() == null ? null : d.getRollingUpdate().getMaxUnavailable());
    }

    /** An absent section means "enabled with defaults", as upstream's IsEnabled(). */
    private static OperandSettings operand(ComponentSpec c) {
        if (c == null) {
            return new OperandSettings(
                    true, null, null, null, null, List.of(), List.of(), List.of(), null);
        }
        List<EnvVar> env =
                c.getEnv() == null
                        ? List.of()
                        : c.getEnv().stream()
                                .map(e -> new EnvVar(e.getName(), e.getValue(), null))
                                .toList();
        ResourceRequirements resources =
                c.getResources() == null
                        ? null
                        : Serialization.jsonMapper()
                                .convertValue(c.getResources(), ResourceRequirements.class);
        return new OperandSettings(
                c.isEnabled(),
                c.getRepository(),
                c.getImage(),
                c.getVersion(),
                c.getImagePullPolicy() == null ? null : json(c.getImagePullPolicy()),
                c.getImagePullSecrets(),
                c.getArgs(),
                env,
                resources);
    }

    /** The JSON spelling of an API enum (e.g. RollingUpdate, IfNotPresent, single). */
    private static String json(Enum<?> value) {
        return Serialization.jsonMapper().convertValue(value, String.class);
    }
}
