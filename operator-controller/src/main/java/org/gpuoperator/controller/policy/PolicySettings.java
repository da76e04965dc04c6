package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        Simulation simulation,
        NodeReadiness nodeReadiness,
        Cdi cdi) {

    /**
     * spec.cdi.
     *
     * @param enabled GPUs reach containers through CDI: the toolkit writes the spec and registers
     *     the CDI runtimes, the RuntimeClasses {@code nvidia-cdi} and {@code nvidia-legacy} exist,
     *     the device plugin names CDI devices (upstream default true)
     * @param defaultMode cdi.default: the {@code nvidia} runtime itself runs in CDI mode
     */
    public record Cdi(boolean enabled, boolean defaultMode) {
        public static Cdi defaults() {
            return new Cdi(true, false);
        }
    }

    /** Settings with CDI at its defaults (tests, older callers). */
    public PolicySettings(
            DaemonSetSettings daemonsets,
            Map<Operand, OperandSettings> operands,
            String runtimeClass,
            String kubeletRootDir,
            String toolkitInstallDir,
            String migStrategy,
            Simulation simulation,
            NodeReadiness nodeReadiness) {
        this(
                daemonsets,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation,
                nodeReadiness,
                null);
    }

    /**
     * What the validator and the node condition need beyond the operand sections.
     *
     * @param driverVersion spec.driver.version when it names a driver (not the agent image's
     *     default tag nor a digest); null otherwise
     * @param validatorEnv per validation step (driver, toolkit, cuda, plugin): {@code
     *     validator.<step>.env}
     * @param gpuNotReadyTaint spec.daemonsets.gpuNotReadyTaint
     * @param kernelModuleType spec.driver.kernelModuleType ({@code auto}, {@code open}, {@code
     *     proprietary}) for the driver agent
     */
    public record NodeReadiness(
            String driverVersion,
            Map<String, List<EnvVar>> validatorEnv,
            boolean gpuNotReadyTaint,
            String kernelModuleType) {
        public NodeReadiness {
            validatorEnv = validatorEnv == null ? Map.of() : Map.copyOf(validatorEnv);
            kernelModuleType = blankTo(kernelModuleType, "auto");
        }

        public NodeReadiness(
                String driverVersion,
                Map<String, List<EnvVar>> validatorEnv,
                boolean gpuNotReadyTaint) {
            this(driverVersion, validatorEnv, gpuNotReadyTaint, null);
        }

        public static NodeReadiness defaults() {
            return new NodeReadiness(null, Map.of(), false);
        }
    }

    /** Settings without the node-readiness part (tests, older callers). */
    public PolicySettings(
            DaemonSetSettings daemonsets,
            Map<Operand, OperandSettings> operands,
            String runtimeClass,
            String kubeletRootDir,
            String toolkitInstallDir,
            String migStrategy,
            Simulation simulation) {
        this(
                daemonsets,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation,
                null);
    }

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
        nodeReadiness = nodeReadiness == null ? NodeReadiness.defaults() : nodeReadiness;
        cdi = cdi == null ? Cdi.defaults() : cdi;
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

    /** The operands this policy enables. */
    public Set<Operand> enabledOperands() {
        Set<Operand> on = EnumSet.noneOf(Operand.class);
        operands.forEach(
                (o, s) -> {
                    if (s.enabled()) {
                        on.add(o);
                    }
                });
        return on;
    }

    public PolicySettings withNodeReadiness(NodeReadiness n) {
        return new PolicySettings(
                daemonsets,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation,
                n,
                cdi);
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
                simulation,
                nodeReadiness,
                cdi);
    }

    public PolicySettings withDaemonSets(DaemonSetSettings d) {
        return new PolicySettings(
                d,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation,
                nodeReadiness,
                cdi);
    }

    public PolicySettings withCdi(Cdi c) {
        return new PolicySettings(
                daemonsets,
                operands,
                runtimeClass,
                kubeletRootDir,
                toolkitInstallDir,
                migStrategy,
                simulation,
                nodeReadiness,
                c);
    }

    private static String blankTo(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
