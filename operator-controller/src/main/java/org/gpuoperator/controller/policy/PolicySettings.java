package org.gpuoperator.controller.policy;

import java.util.EnumMap;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.controller.operand.Operand;

/**
 * Everything the controller reads from a ClusterPolicy spec, as plain values. Built from the CRD by
 * {@link ClusterPolicySettings}; built directly in tests.
 */
public record PolicySettings(
        DaemonSetSettings daemonsets,
        Map<Operand, OperandSettings> operands,
        String runtimeClass,
        String kubeletRootDir,
        String toolkitInstallDir,
        String migStrategy,
        Simulation simulation) {

    /** spec.simulation: when enabled, agents get {@code GPU_SOURCE=simulated:<profile>}. */
    public record Simulation(boolean enabled, String profile, String nodeLabel) {
        public Simulation {
            profile = blankTo(profile, ClusterPolicyDefaults.SIMULATION_PROFILE);
            nodeLabel = blankTo(nodeLabel, ClusterPolicyDefaults.SIMULATION_NODE_LABEL);
        }
    }

    public PolicySettings {
        operands = Map.copyOf(operands);
        // a policy is defaulted before it gets here; these cover settings built directly (tests,
        // render)
        runtimeClass = blankTo(runtimeClass, ClusterPolicyDefaults.RUNTIME_CLASS);
        kubeletRootDir = blankTo(kubeletRootDir, ClusterPolicyDefaults.KUBELET_ROOT_DIR);
        toolkitInstallDir = blankTo(toolkitInstallDir, ClusterPolicyDefaults.TOOLKIT_INSTALL_DIR);
        simulation = simulation == null ? new Simulation(false, null, null) : simulation;
    }

    public OperandSettings operand(Operand operand) {
        OperandSettings s = operands.get(operand);
        if (s == null) {
            throw new IllegalArgumentException("no settings for operand " + operand.id());
        }
        return s;
    }

    public boolean enabled(Operand operand) {
        OperandSettings s = operands.get(operand);
        return s != null && s.enabled();
    }

    public PolicySettings withOperand(Operand operand, OperandSettings settings) {
        Map<Operand, OperandSettings> copy = new EnumMap<>(operands);
        copy.put(operand, settings);
        return new PolicySettings(
                daemonsets,
                copy,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation);
    }

    public PolicySettings withDaemonSets(DaemonSetSettings d) {
        return new PolicySettings(
                d,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation);
    }

    private static String blankTo(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
