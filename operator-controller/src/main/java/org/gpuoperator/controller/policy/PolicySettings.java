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
        Cdi cdi,
        PluginConfig pluginConfig,
        ExporterMonitor exporterMonitor,
        MigLayouts migLayouts,
        String mpsRoot,
        ExporterMonitor operatorMonitor) {

    /**
     * spec.devicePlugin.mps.root when unset: the host directory of the MPS control daemon's pipes,
     * logs and shared memory, as upstream's.
     */
    public static final String DEFAULT_MPS_ROOT = "/run/nvidia/mps";

    /**
     * spec.migManager.config: the mig-parted config the MIG manager reads.
     *
     * @param name the ConfigMap holding {@code config.yaml}; {@value #DEFAULT_NAME} (rendered by
     *     the operator) unless the policy names the user's
     * @param defaultName the layout of a node without the {@code nvidia.com/mig.config} label
     *     (null: the GPUs are left as they are)
     */
    public record MigLayouts(String name, String defaultName) {
        public static final String DEFAULT_NAME = "default-mig-parted-config";
        public static final MigLayouts DEFAULTS = new MigLayouts(null, null);

        public MigLayouts {
            name = blankTo(name, DEFAULT_NAME).trim();
            defaultName = defaultName == null || defaultName.isBlank() ? null : defaultName.trim();
        }

        /** Whether the operator renders the ConfigMap (the policy names none of the user's). */
        public boolean operatorsConfigMap() {
            return DEFAULT_NAME.equals(name);
        }
    }

    /**
     * spec.dcgmExporter.serviceMonitor (the exporter's Service) or
     * spec.operator.metrics.serviceMonitor (the operator's): a Prometheus Operator ServiceMonitor,
     * as upstream renders it.
     *
     * @param interval scrape interval (null: Prometheus's default)
     * @param scrapeTimeout (null: Prometheus's default)
     * @param relabelings each a RelabelConfig's set fields, as the ServiceMonitor spells them
     */
    public record ExporterMonitor(
            boolean enabled,
            String interval,
            String scrapeTimeout,
            boolean honorLabels,
            Map<String, String> additionalLabels,
            List<Map<String, Object>> relabelings) {
        public static final ExporterMonitor NONE =
                new ExporterMonitor(false, null, null, false, Map.of(), List.of());

        public ExporterMonitor {
            additionalLabels = additionalLabels == null ? Map.of() : Map.copyOf(additionalLabels);
            relabelings = relabelings == null ? List.of() : List.copyOf(relabelings);
        }
    }

    /**
     * spec.devicePlugin.config: the ConfigMap of named device-plugin configs, mounted into the
     * device plugin and feature discovery.
     *
     * @param name the ConfigMap (null: none)
     * @param defaultName the key used on a node without the {@code nvidia.com/device-plugin.config}
     *     label (null: none)
     */
    public record PluginConfig(String name, String defaultName) {
        public PluginConfig {
            name = name == null || name.isBlank() ? null : name.trim();
            defaultName = defaultName == null || defaultName.isBlank() ? null : defaultName.trim();
        }

        public static final PluginConfig NONE = new PluginConfig(null, null);

        public boolean enabled() {
            return name != null;
        }
    }

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
        pluginConfig = pluginConfig == null ? PluginConfig.NONE : pluginConfig;
        exporterMonitor = exporterMonitor == null ? ExporterMonitor.NONE : exporterMonitor;
        migLayouts = migLayouts == null ? MigLayouts.DEFAULTS : migLayouts;
        mpsRoot = mpsRoot(mpsRoot);
        operatorMonitor = operatorMonitor == null ? ExporterMonitor.NONE : operatorMonitor;
    }

    /** The MPS root as a host path: the default when blank, without a trailing slash. */
    private static String mpsRoot(String root) {
        String r = blankTo(root, DEFAULT_MPS_ROOT).trim();
        while (r.length() > 1 && r.endsWith("/")) {
            r = r.substring(0, r.length() - 1);
        }
        return r;
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
        return toBuilder().nodeReadiness(n).build();
    }

    public PolicySettings withOperand(Operand operand, OperandSettings settings) {
        Map<Operand, OperandSettings> copy = new EnumMap<>(operands);
        copy.put(operand, settings);
        return toBuilder().operands(copy).build();
    }

    public PolicySettings withDaemonSets(DaemonSetSettings d) {
        return toBuilder().daemonsets(d).build();
    }

    public PolicySettings withCdi(Cdi c) {
        return toBuilder().cdi(c).build();
    }

    public PolicySettings withPluginConfig(PluginConfig p) {
        return toBuilder().pluginConfig(p).build();
    }

    /** Settings of these DaemonSet defaults and operands, every other part at its default. */
    public static Builder builder(
            DaemonSetSettings daemonsets, Map<Operand, OperandSettings> operands) {
        return new Builder().daemonsets(daemonsets).operands(operands);
    }

    /** These settings, to change some parts of. */
    public Builder toBuilder() {
        return builder(daemonsets, operands)
                .runtimeClass(runtimeClass)
                .kubeletRootDir(kubeletRootDir)
                .toolkitInstallDir(toolkitInstallDir)
                .migStrategy(migStrategy)
                .simulation(simulation)
                .nodeReadiness(nodeReadiness)
                .cdi(cdi)
                .pluginConfig(pluginConfig)
                .exporterMonitor(exporterMonitor)
                .migLayouts(migLayouts)
                .mpsRoot(mpsRoot)
                .operatorMonitor(operatorMonitor);
    }

    /** Builds settings part by part; a part not set gets its default (null before defaulting). */
    public static final class Builder {
        private DaemonSetSettings daemonsets;
        private Map<Operand, OperandSettings> operands = Map.of();
        private String runtimeClass;
        private String kubeletRootDir;
        private String toolkitInstallDir;
        private String migStrategy;
        private Simulation simulation;
        private NodeReadiness nodeReadiness;
        private Cdi cdi;
        private PluginConfig pluginConfig;
        private ExporterMonitor exporterMonitor;
        private MigLayouts migLayouts;
        private String mpsRoot;
        private ExporterMonitor operatorMonitor;

        private Builder() {}

        public Builder daemonsets(DaemonSetSettings v) {
            daemonsets = v;
            return this;
        }

        public Builder operands(Map<Operand, OperandSettings> v) {
            operands = v;
            return this;
        }

        public Builder runtimeClass(String v) {
            runtimeClass = v;
            return this;
        }

        public Builder kubeletRootDir(String v) {
            kubeletRootDir = v;
            return this;
        }

        public Builder toolkitInstallDir(String v) {
            toolkitInstallDir = v;
            return this;
        }

        public Builder migStrategy(String v) {
            migStrategy = v;
            return this;
        }

        public Builder simulation(Simulation v) {
            simulation = v;
            return this;
        }

        public Builder nodeReadiness(NodeReadiness v) {
            nodeReadiness = v;
            return this;
        }

        public Builder cdi(Cdi v) {
            cdi = v;
            return this;
        }

        public Builder pluginConfig(PluginConfig v) {
            pluginConfig = v;
            return this;
        }

        public Builder exporterMonitor(ExporterMonitor v) {
            exporterMonitor = v;
            return this;
        }

        public Builder migLayouts(MigLayouts v) {
            migLayouts = v;
            return this;
        }

        public Builder mpsRoot(String v) {
            mpsRoot = v;
            return this;
        }

        public Builder operatorMonitor(ExporterMonitor v) {
            operatorMonitor = v;
            return this;
        }

        public PolicySettings build() {
            return new PolicySettings(
                    daemonsets,
                    operands,
                    runtimeClass,
                    kubeletRootDir,
                    toolkitInstallDir,
                    migStrategy,
                    simulation,
                    nodeReadiness,
                    cdi,
                    pluginConfig,
                    exporterMonitor,
                    migLayouts,
                    mpsRoot,
                    operatorMonitor);
        }
    }

    private static String blankTo(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }
}
