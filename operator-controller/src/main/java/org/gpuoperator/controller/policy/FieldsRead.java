package org.gpuoperator.controller.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.validation.SetFields;
import org.gpuoperator.api.validation.SetFields.SetField;

/**
 * The one table of the ClusterPolicy fields this version acts on. A field a user set that no entry
 * covers is reported in {@code status.warnings} (and by {@code render} on stderr) as {@value
 * #NOT_ACTED_ON}; {@code FieldsReadTest} keeps the table honest by changing each entry's field and
 * checking that the rendered objects or the status change.
 *
 * <p>To read a new field: map it in {@link ClusterPolicySettings} (and use it in a model), then add
 * one line {@code read("spec.section.field", "where it is acted on", "a changed value as YAML")}
 * here. A path covers everything below it ({@code spec.driver.env} covers {@code
 * spec.driver.env[0].name}); {@code [*]} stands for any list index or map key.
 */
public final class FieldsRead {

    public static final String NOT_ACTED_ON = "set, not acted on by this version";

    /** How an entry covers its field. */
    public enum Kind {
        /** The field is acted on whatever its value. */
        READ,
        /**
         * A feature this version does not have: its switch ({@code <path>.enabled}, or the path
         * itself when it is a boolean) is honoured while off, and then the whole section is inert;
         * switched on, every field set under it gets the warning.
         */
        OFF_ONLY
    }

    /**
     * @param path JSON path below which every field is covered
     * @param actedOn where the controller acts on it (class and effect)
     * @param changed for READ: a value, as YAML, that differs from the one in the test policy and
     *     must change what is rendered; for OFF_ONLY unused (the test switches the feature on)
     */
    public record Entry(Kind kind, String path, String actedOn, String changed) {}

    public static final List<Entry> TABLE =
            Stream.of(
                            List.of(
                                    read(
                                            "spec.operator.runtimeClass",
                                            "OperandModels.runtimeClass (name and handler), toolkit env CONTAINERD_RUNTIME_CLASS",
                                            "nvidia-other"),
                                    read(
                                            "spec.daemonsets.labels",
                                            "DaemonSetSkeleton: pod labels",
                                            "{team: other}"),
                                    read(
                                            "spec.daemonsets.annotations",
                                            "DaemonSetSkeleton: pod annotations",
                                            "{team: other}"),
                                    read(
                                            "spec.daemonsets.tolerations",
                                            "DaemonSetSkeleton: pod tolerations",
                                            "[{key: other, operator: Exists}]"),
                                    read(
                                            "spec.daemonsets.priorityClassName",
                                            "DaemonSetSkeleton: pod priorityClassName",
                                            "other-priority"),
                                    read(
                                            "spec.daemonsets.updateStrategy",
                                            "DaemonSetSkeleton: DaemonSet updateStrategy",
                                            "OnDelete"),
                                    read(
                                            "spec.daemonsets.rollingUpdate.maxUnavailable",
                                            "DaemonSetSkeleton: rollingUpdate.maxUnavailable",
                                            "'7'"),
                                    read(
                                            "spec.hostPaths.kubeletRootDir",
                                            "DevicePluginModel, DcgmExporterModel: kubelet host paths",
                                            "/var/lib/other-kubelet"),
                                    read(
                                            "spec.toolkit.installDir",
                                            "ToolkitModel: install host path",
                                            "/opt/other-toolkit"),
                                    read(
                                            "spec.mig.strategy",
                                            "DevicePluginModel, FeatureDiscoveryModel, DcgmExporterModel: env"
                                                    + " MIG_STRATEGY",
                                            "none"),
                                    read(
                                            "spec.simulation.enabled",
                                            "GPU_SOURCE of every agent; NodeGate: simulated GPU nodes",
                                            "false"),
                                    read(
                                            "spec.simulation.profile",
                                            "GPU_SOURCE=simulated:<profile> of every agent",
                                            "t4-x1"),
                                    read(
                                            "spec.simulation.nodeLabel",
                                            "NodeGate: which nodes are simulated GPU nodes",
                                            "gpuoperator.org/other-simulated-gpu")),
                            operand("spec.driver", "DriverModel"),
                            operand("spec.toolkit", "ToolkitModel"),
                            operand("spec.devicePlugin", "DevicePluginModel"),
                            operand("spec.gfd", "FeatureDiscoveryModel"),
                            operand("spec.dcgmExporter", "DcgmExporterModel"),
                            List.of(
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.enabled",
                                            "DcgmExporterModel: renders or deletes the ServiceMonitor",
                                            "false"),
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.interval",
                                            "DcgmExporterModel.serviceMonitor: endpoint interval",
                                            "45s"),
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.scrapeTimeout",
                                            "DcgmExporterModel.serviceMonitor: endpoint scrapeTimeout",
                                            "5s"),
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.honorLabels",
                                            "DcgmExporterModel.serviceMonitor: endpoint honorLabels",
                                            "false"),
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.additionalLabels",
                                            "DcgmExporterModel.serviceMonitor: its labels",
                                            "{team: other}"),
                                    read(
                                            "spec.dcgmExporter.serviceMonitor.relabelings",
                                            "DcgmExporterModel.serviceMonitor: endpoint relabelings",
                                            "[{action: keep, sourceLabels: [other]}]"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.enabled",
                                            "OperatorMonitor: renders or deletes the operator's ServiceMonitor and PrometheusRule",
                                            "false"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.interval",
                                            "OperatorMonitor: endpoint interval",
                                            "45s"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.scrapeTimeout",
                                            "OperatorMonitor: endpoint scrapeTimeout",
                                            "5s"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.honorLabels",
                                            "OperatorMonitor: endpoint honorLabels",
                                            "false"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.additionalLabels",
                                            "OperatorMonitor: the ServiceMonitor's and the PrometheusRule's labels",
                                            "{team: other}"),
                                    read(
                                            "spec.operator.metrics.serviceMonitor.relabelings",
                                            "OperatorMonitor: endpoint relabelings",
                                            "[{action: keep, sourceLabels: [other]}]")),
                            operand("spec.migManager", "MigManagerModel"),
                            List.of(
                                    read(
                                            "spec.migManager.config.name",
                                            "MigManagerModel: the ConfigMap mounted at /mig-parted-config (the operator's default-mig-parted-config unless named)",
                                            "other-mig-config"),
                                    read(
                                            "spec.migManager.config.default",
                                            "MigManagerModel: env DEFAULT_MIG_CONFIG, the layout of a node without nvidia.com/mig.config",
                                            "''")),
                            // always enabled, as upstream: validator.enabled is not read
                            operand("spec.validator", "ValidatorModel").stream()
                                    .filter(e -> !e.path().equals("spec.validator.enabled"))
                                    .toList(),
                            List.of(
                                    read(
                                            "spec.validator.driver.env",
                                            "ValidatorModel: container env (driver check)",
                                            "[{name: DISABLE_DEV_CHAR_SYMLINK_CREATION, value:"
                                                    + " 'false'}]"),
                                    read(
                                            "spec.validator.toolkit.env",
                                            "ValidatorModel: container env (toolkit check)",
                                            "[{name: OTHER_TOOLKIT, value: x}]"),
                                    read(
                                            "spec.validator.cuda.env",
                                            "ValidatorModel: container env (cuda check)",
                                            "[{name: OTHER_CUDA, value: x}]"),
                                    read(
                                            "spec.validator.plugin.env",
                                            "ValidatorModel: container env (plugin check)",
                                            "[{name: WITH_WORKLOAD, value: 'false'}]"),
                                    read(
                                            "spec.devicePlugin.config",
                                            "PluginConfigWiring: the ConfigMap volume at"
                                                    + " /available-configs and env"
                                                    + " CONFIG_FILE_SRCDIR, DEFAULT_CONFIG of the"
                                                    + " device plugin and feature discovery",
                                            "{name: other-config, default: other}"),
                                    read(
                                            "spec.devicePlugin.mps.root",
                                            "MpsControlDaemonModel: host path mounted read-write"
                                                    + " in nvidia-device-plugin-mps-control-daemon and"
                                                    + " read-only in the device plugin, env MPS_ROOT of"
                                                    + " both (default /run/nvidia/mps)",
                                            "/run/other-mps"),
                                    read(
                                            "spec.cdi.enabled",
                                            "CdiWiring: toolkit env CDI_ENABLED and the /var/run/cdi"
                                                    + " mount, device plugin DEVICE_LIST_STRATEGY and"
                                                    + " CDI_ANNOTATION_PREFIX, RuntimeClasses nvidia-cdi"
                                                    + " and nvidia-legacy (deleted while off)",
                                            "false"),
                                    read(
                                            "spec.cdi.default",
                                            "CdiWiring: toolkit env NVIDIA_CONTAINER_RUNTIME_MODE=cdi",
                                            "false"),
                                    read(
                                            "spec.daemonsets.gpuNotReadyTaint",
                                            "NodeRollout: the nvidia.com/gpu-not-ready taint;"
                                                    + " every operand tolerates it",
                                            "false"),
                                    read(
                                            "spec.driver.useNvidiaDriverCRD",
                                            "ClusterPolicyReconciler: the driver DaemonSets come"
                                                    + " from the NVIDIADrivers, one per"
                                                    + " NVIDIADriver and node pool (render and"
                                                    + " plan: from --nvidiadrivers)",
                                            "true"),
                                    read(
                                            "spec.driver.kernelModuleType",
                                            "DriverModel: env KERNEL_MODULE_TYPE (left out for"
                                                    + " auto)",
                                            "proprietary")),
                            upgradePolicy(),
                            List.of(
                                    off(
                                            "spec.driver.usePrecompiled",
                                            "no precompiled driver images"),
                                    off("spec.driver.rdma", "no GPUDirect RDMA"),
                                    off(
                                            "spec.operator.use_ocp_driver_toolkit",
                                            "no OpenShift driver toolkit"),
                                    off("spec.dcgm", "no standalone DCGM host engine"),
                                    off("spec.nodeStatusExporter", "no node-status-exporter"),
                                    off("spec.gds", "no GPUDirect Storage"),
                                    off("spec.gdrcopy", "no GDRCopy"),
                                    off("spec.sandboxWorkloads", "no sandbox workloads"),
                                    off("spec.vfioManager", "no VFIO manager"),
                                    off("spec.sandboxDevicePlugin", "no sandbox device plugin"),
                                    off("spec.vgpuManager", "no vGPU manager"),
                                    off("spec.vgpuDeviceManager", "no vGPU device manager"),
                                    off("spec.kataManager", "no Kata manager"),
                                    off(
                                            "spec.kataSandboxDevicePlugin",
                                            "no Kata sandbox device plugin"),
                                    off("spec.ccManager", "no confidential computing manager"),
                                    off("spec.psp", "PodSecurityPolicies no longer exist"),
                                    off("spec.psa", "no namespace labelling")))
                    .flatMap(List::stream)
                    .toList();

    private FieldsRead() {}

    /** The table as Markdown rows, for the module README (checked by FieldsReadTest). */
    public static String markdown() {
        StringBuilder out =
                new StringBuilder("| field (and everything below it) | acted on |\n|---|---|\n");
        for (Entry e : TABLE) {
            out.append("| `").append(e.path()).append("` | ").append(e.actedOn()).append(" |\n");
        }
        return out.toString();
    }

    /** spec.driver.upgradePolicy: UpgradePolicy, acted on by the reconcile's DriverUpgrade step. */
    private static List<Entry> upgradePolicy() {
        String p = "spec.driver.upgradePolicy.";
        String where = "UpgradePolicy → DriverUpgrade (UpgradeMachine): ";
        return List.of(
                read(p + "autoUpgrade", where + "whether nodes move at all", "false"),
                read(p + "maxParallelUpgrades", where + "nodes upgraded at once", "3"),
                read(p + "maxUnavailable", where + "nodes taken out at once", "'2'"),
                read(
                        p + "podDeletion.force",
                        where + "evict GPU pods without a controller",
                        "false"),
                read(p + "podDeletion.timeoutSeconds", where + "GPU pod eviction timeout", "60"),
                read(
                        p + "podDeletion.deleteEmptyDir",
                        where + "evict GPU pods with emptyDir",
                        "false"),
                read(p + "waitForCompletion.podSelector", where + "pods waited for", "app=other"),
                read(p + "waitForCompletion.timeoutSeconds", where + "wait timeout", "60"),
                read(p + "drain.enable", where + "drain when the GPU pod eviction fails", "false"),
                read(p + "drain.force", where + "drain pods without a controller", "false"),
                read(p + "drain.podSelector", where + "pods drained", "app=other"),
                read(p + "drain.timeoutSeconds", where + "drain timeout", "60"),
                read(p + "drain.deleteEmptyDir", where + "drain pods with emptyDir", "false"));
    }

    /** The fields every operand section shares (ComponentSpec), acted on by its model. */
    private static List<Entry> operand(String section, String model) {
        String where = model + " via DaemonSetSkeleton: ";
        return List.of(
                read(section + ".enabled", "DesiredState: renders or deletes " + model, "false"),
                read(section + ".repository", where + "image", "other.example.com/nvidia"),
                read(section + ".image", where + "image", "other-image"),
                read(section + ".version", where + "image", "v9.9.9"),
                read(section + ".imagePullPolicy", where + "imagePullPolicy", "Never"),
                read(section + ".imagePullSecrets", where + "imagePullSecrets", "[other-secret]"),
                read(section + ".args", where + "container args", "[--other]"),
                read(section + ".env", where + "container env", "[{name: OTHER, value: x}]"),
                read(
                        section + ".resources",
                        where + "container resources",
                        "{limits: {cpu: '3'}}"));
    }

    private static Entry read(String path, String actedOn, String changed) {
        return new Entry(Kind.READ, path, actedOn, changed);
    }

    private static Entry off(String path, String why) {
        return new Entry(
                Kind.OFF_ONLY, path, "not in this version (" + why + "); honoured while off", null);
    }

    /**
     * One warning per field the user set that no entry covers, in the spec's order. {@code
     * effective} (the spec with defaults) tells which OFF_ONLY features are on.
     */
    public static List<Unread> unread(ClusterPolicySpec given, ClusterPolicySpec effective) {
        Map<String, Object> effectiveLeaves =
                SetFields.of(effective, "spec").stream()
                        .filter(f -> f.value() != null)
                        .collect(Collectors.toMap(SetField::path, SetField::value, (a, b) -> a));
        List<Unread> unread = new ArrayList<>();
        for (SetField field : SetFields.of(given, "spec")) {
            if (coveringEntry(field.path(), effectiveLeaves).isEmpty()) {
                unread.add(new Unread(field.path(), field.known()));
            }
        }
        return List.copyOf(unread);
    }

    /** A field set but not acted on; {@code known} is false for a field this API does not know. */
    public record Unread(String path, boolean known) {}

    /** The entry that covers the leaf, given the effective spec's leaves (for OFF_ONLY). */
    static Optional<Entry> coveringEntry(String leafPath, Map<String, Object> effectiveLeaves) {
        String normalized = wildcard(leafPath);
        return TABLE.stream()
                .filter(e -> covers(e.path(), normalized))
                .filter(e -> e.kind() == Kind.READ || isOff(e.path(), effectiveLeaves))
                .findFirst();
    }

    /** Whether the entry's path (with {@code [*]} wildcards) is the leaf or above it. */
    public static boolean covers(String entryPath, String normalizedLeafPath) {
        return normalizedLeafPath.equals(entryPath)
                || normalizedLeafPath.startsWith(entryPath + ".")
                || normalizedLeafPath.startsWith(entryPath + "[");
    }

    /** {@code spec.driver.env[3].name} → {@code spec.driver.env[*].name}. */
    public static String wildcard(String path) {
        return path.replaceAll("\\[[^\\]]*\\]", "[*]");
    }

    private static boolean isOff(String path, Map<String, Object> effectiveLeaves) {
        Object own = effectiveLeaves.get(path);
        Object switchValue = own instanceof Boolean ? own : effectiveLeaves.get(path + ".enabled");
        return !Boolean.TRUE.equals(switchValue);
    }
}
