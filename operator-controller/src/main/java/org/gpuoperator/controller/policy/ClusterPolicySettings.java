package org.gpuoperator.controller.policy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.HostPathsSpec;
import org.gpuoperator.api.v1.RelabelConfig;
import org.gpuoperator.api.v1.ServiceMonitorConfig;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.ValidatorComponentSpec;
import org.gpuoperator.api.v1.ValidatorSpec;
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
        operands.put(Operand.MIG_MANAGER, operand(spec.getMigManager()));
        // always enabled, as upstream: validator.enabled is not read
        operands.put(Operand.VALIDATOR, operand(spec.getValidator()).withEnabled(true));
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
                                sim.isEnabled(), sim.getProfile(), sim.getNodeLabel()),
                new PolicySettings.NodeReadiness(
                        driverVersion(spec.getDriver()),
                        validatorEnv(spec.getValidator()),
                        spec.getDaemonsets() != null
                                && Boolean.TRUE.equals(spec.getDaemonsets().getGpuNotReadyTaint()),
                        spec.getDriver() == null || spec.getDriver().getKernelModuleType() == null
                                ? null
                                : spec.getDriver().getKernelModuleType().jsonValue()),
                spec.getCdi() == null
                        ? null
                        : new PolicySettings.Cdi(
                                spec.getCdi().isEnabled(),
                                Boolean.TRUE.equals(spec.getCdi().getDefaultConfig())),
                spec.getDevicePlugin() == null || spec.getDevicePlugin().getConfig() == null
                        ? null
                        : new PolicySettings.PluginConfig(
                                spec.getDevicePlugin().getConfig().getName(),
                                spec.getDevicePlugin().getConfig().getDefaultConfig()),
                exporterMonitor(spec.getDcgmExporter()),
                spec.getMigManager() == null || spec.getMigManager().getConfig() == null
                        ? null
                        : new PolicySettings.MigLayouts(
                                spec.getMigManager().getConfig().getName(),
                                spec.getMigManager().getConfig().getDefaultConfig()),
                spec.getDevicePlugin() == null || spec.getDevicePlugin().getMps() == null
                        ? null
                        : spec.getDevicePlugin().getMps().getRoot(),
                monitor(
                        spec.getOperator() == null || spec.getOperator().getMetrics() == null
                                ? null
                                : spec.getOperator().getMetrics().getServiceMonitor()));
    }

    /** spec.dcgmExporter.serviceMonitor; none unless enabled. */
    static PolicySettings.ExporterMonitor exporterMonitor(DcgmExporterSpec exporter) {
        return monitor(exporter == null ? null : exporter.getServiceMonitor());
    }

    /**
     * A ServiceMonitor section (the exporter's, or spec.operator.metrics.serviceMonitor); none
     * unless enabled.
     */
    static PolicySettings.ExporterMonitor monitor(ServiceMonitorConfig m) {
        if (m == null || !Boolean.TRUE.equals(m.getEnabled())) {
            return PolicySettings.ExporterMonitor.NONE;
        }
        List<Map<String, Object>> relabelings = new ArrayList<>();
        if (m.getRelabelings() != null) {
            for (RelabelConfig r : m.getRelabelings()) {
                Map<String, Object> out = new LinkedHashMap<>();
                putSet(out, "sourceLabels", r.getSourceLabels());
                putSet(out, "separator", r.getSeparator());
                putSet(out, "targetLabel", r.getTargetLabel());
                putSet(out, "regex", r.getRegex());
                putSet(out, "modulus", r.getModulus());
                putSet(out, "replacement", r.getReplacement());
                putSet(out, "action", r.getAction());
                relabelings.add(out);
            }
        }
        return new PolicySettings.ExporterMonitor(
                true,
                m.getInterval(),
                m.getScrapeTimeout(),
                Boolean.TRUE.equals(m.getHonorLabels()),
                m.getAdditionalLabels(),
                relabelings);
    }

    private static void putSet(Map<String, Object> out, String key, Object value) {
        if (value != null) {
            out.put(key, value);
        }
    }

    /**
     * spec.driver.version as a driver version for the agent: not when it is a digest, nor the
     * default (the driver-agent image's own version, which names no driver).
     */
    static String driverVersion(DriverSpec driver) {
        return driverVersion(driver == null ? null : driver.getVersion());
    }

    /** As {@link #driverVersion(DriverSpec)}, for a version field (also an NVIDIADriver's). */
    public static String driverVersion(String v) {
        if (v == null
                || v.isBlank()
                || v.startsWith("sha256:")
                || v.equals(
                        ClusterPolicyDefaults.imageVersion(ClusterPolicyDefaults.DRIVER_IMAGE))) {
            return null;
        }
        return v.trim();
    }

    private static Map<String, List<EnvVar>> validatorEnv(ValidatorSpec v) {
        Map<String, List<EnvVar>> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        putEnv(out, "driver", v.getDriver());
        putEnv(out, "toolkit", v.getToolkit());
        putEnv(out, "cuda", v.getCuda());
        putEnv(out, "plugin", v.getPlugin());
        return out;
    }

    private static void putEnv(
            Map<String, List<EnvVar>> out, String step, ValidatorComponentSpec c) {
        if (c != null && c.getEnv() != null) {
            out.put(step, env(c.getEnv()));
        }
    }

    private static List<EnvVar> env(List<org.gpuoperator.api.common.EnvVar> env) {
        return env.stream().map(e -> new EnvVar(e.getName(), e.getValue(), null)).toList();
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
        List<EnvVar> env = c.getEnv() == null ? List.of() : env(c.getEnv());
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
