package org.gpuoperator.api.validation;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.EnvVar;
import org.gpuoperator.api.common.ImageSpec;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.CdiSpec;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.OperatorSpec;
import org.gpuoperator.api.v1.ServiceMonitorConfig;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.UpdateStrategyType;

/**
 * Checks a ClusterPolicy and returns every problem at once, each with the JSON path of its field.
 * Pure: no I/O, the input is not changed.
 *
 * <p>Covers the constraints of the CRD schema (so a policy read from a file is checked like one
 * sent to the API server), the rules a schema cannot express (cross-field rules, image paths,
 * percentages), and reports as warnings the fields this operator ignores: unknown, deprecated, or
 * features it does not implement.
 */
public final class ClusterPolicyValidator {
    /**
     * Features of the upstream operator that this project does not implement, by JSON path below
     * {@code spec}. Setting one to true gives a warning; the rest of the policy still applies.
     */
    public static final List<String> NOT_IMPLEMENTED =
            List.of(
                    "driver.usePrecompiled",
                    "driver.rdma.enabled",
                    "operator.use_ocp_driver_toolkit",
                    "dcgm.enabled",
                    "nodeStatusExporter.enabled",
                    "gds.enabled",
                    "gdrcopy.enabled",
                    "ccManager.enabled",
                    "kataManager.enabled",
                    "sandboxWorkloads.enabled");

    private static final Pattern PERCENT_OR_COUNT = Pattern.compile("^([0-9]+)(%?)$");
    private static final Pattern DIGEST = Pattern.compile("^sha256:[a-f0-9]{64}$");
    private static final Pattern DURATION_PART =
            Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)");
    // Kubernetes label key: optional DNS-subdomain prefix, then a name of at most 63 characters.
    private static final Pattern LABEL_KEY =
            Pattern.compile(
                    "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

    private ClusterPolicyValidator() {}

    /** Problems of a whole ClusterPolicy; paths start with {@code spec.}. */
    public static List<ValidationProblem> validate(ClusterPolicy policy) {
        if (policy.getSpec() == null) {
            return List.of(ValidationProblem.error("spec", "is required"));
        }
        return validate(policy.getSpec());
    }

    /** Problems of a spec; paths start with {@code spec.}. */
    public static List<ValidationProblem> validate(ClusterPolicySpec spec) {
        List<ValidationProblem> problems = new ArrayList<>(ConstraintChecks.check(spec, "spec"));
        ClusterPolicySpec effective = ClusterPolicyDefaults.effective(spec);
        deprecatedFields(spec, problems);
        notImplemented(spec, problems);
        cdi(spec.getCdi(), effective, problems);
        daemonsets(spec.getDaemonsets(), problems);
        driver(spec.getDriver(), problems);
        devicePlugin(spec.getDevicePlugin(), problems);
        dcgmExporter(spec.getDcgmExporter(), problems);
        simulation(spec.getSimulation(), problems);
        images(spec, problems);
        envLists(spec, problems);
        return List.copyOf(problems);
    }

    private static void deprecatedFields(ClusterPolicySpec spec, List<ValidationProblem> problems) {
        OperatorSpec operator = spec.getOperator();
        if (operator != null && operator.getDefaultRuntime() != null) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.operator.defaultRuntime",
                            "deprecated and ignored: the container runtime is detected on each node"));
        }
        if (operator != null && operator.getInitContainer() != null) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.operator.initContainer", "deprecated and ignored"));
        }
        DriverSpec driver = spec.getDriver();
        if (driver != null && Boolean.TRUE.equals(driver.getUseOpenKernelModules())) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.driver.useOpenKernelModules",
                            "deprecated: use driver.kernelModuleType=open instead"));
        }
        if (driver != null
                && driver.getLicensingConfig() != null
                && notBlank(driver.getLicensingConfig().getConfigMapName())) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.driver.licensingConfig.configMapName",
                            "deprecated: use driver.licensingConfig.secretName instead"));
        }
        if (spec.getCdi() != null && spec.getCdi().getDefaultConfig() != null) {
            problems.add(ValidationProblem.warning("spec.cdi.default", "deprecated and ignored"));
        }
        if (spec.getDcgm() != null && spec.getDcgm().getHostPort() != null) {
            problems.add(ValidationProblem.warning("spec.dcgm.hostPort", "deprecated and ignored"));
        }
        if (spec.getPsp() != null && Boolean.TRUE.equals(spec.getPsp().getEnabled())) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.psp.enabled",
                            "ignored: PodSecurityPolicies no longer exist in Kubernetes; use psa.enabled"));
        }
    }

    private static void notImplemented(ClusterPolicySpec spec, List<ValidationProblem> problems) {
        Set<String> paths = new HashSet<>();
        NOT_IMPLEMENTED.forEach(path -> paths.add("spec." + path));
        SpecWalker.walk(
                spec,
                "spec",
                new SpecWalker.Visitor() {
                    @Override
                    public void property(String path, AnnotatedElement field, Object value) {
                        if (Boolean.TRUE.equals(value) && paths.contains(path)) {
                            problems.add(
                                    ValidationProblem.warning(
                                            path, "not implemented by this operator; ignored"));
                        }
                    }

                    @Override
                    public void unknown(String path, Object value) {}
                });
    }

    private static void cdi(
            CdiSpec cdi, ClusterPolicySpec effective, List<ValidationProblem> problems) {
        if (cdi == null || !Boolean.TRUE.equals(cdi.getNriPluginEnabled())) {
            return;
        }
        if (!effective.getCdi().isEnabled()) {
            problems.add(
                    ValidationProblem.error(
                            "spec.cdi.nriPluginEnabled", "requires cdi.enabled=true"));
        }
        if (!effective.getToolkit().isEnabled()) {
            problems.add(
                    ValidationProblem.error(
                            "spec.cdi.nriPluginEnabled", "requires toolkit.enabled=true"));
        }
    }

    private static void daemonsets(DaemonsetsSpec daemonsets, List<ValidationProblem> problems) {
        if (daemonsets == null || daemonsets.getRollingUpdate() == null) {
            return;
        }
        String path = "spec.daemonsets.rollingUpdate.maxUnavailable";
        if (daemonsets.getUpdateStrategy() == UpdateStrategyType.ON_DELETE) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.daemonsets.rollingUpdate",
                            "ignored because updateStrategy is OnDelete"));
        }
        String maxUnavailable = daemonsets.getRollingUpdate().getMaxUnavailable();
        if (maxUnavailable != null) {
            countOrPercent(path, maxUnavailable, problems);
            if (maxUnavailable.equals("0") || maxUnavailable.equals("0%")) {
                problems.add(
                        ValidationProblem.error(
                                path,
                                "must be at least 1 (or 1%): a DaemonSet update needs one unavailable pod"));
            }
        }
    }

    private static void driver(DriverSpec driver, List<ValidationProblem> problems) {
        if (driver == null) {
            return;
        }
        DriverUpgradePolicySpec upgrade = driver.getUpgradePolicy();
        if (upgrade == null) {
            return;
        }
        String base = "spec.driver.upgradePolicy";
        IntOrString maxUnavailable = upgrade.getMaxUnavailable();
        if (maxUnavailable != null
                && maxUnavailable.getIntVal() != null
                && maxUnavailable.getIntVal() < 0) {
            problems.add(
                    ValidationProblem.error(
                            base + ".maxUnavailable",
                            "must be at least 0, was " + maxUnavailable.getIntVal()));
        } else if (maxUnavailable != null && maxUnavailable.getStrVal() != null) {
            countOrPercent(base + ".maxUnavailable", maxUnavailable.getStrVal(), problems);
        }
        if (upgrade.getWaitForCompletion() != null
                && upgrade.getWaitForCompletion().getTimeoutSeconds() != null
                && upgrade.getWaitForCompletion().getTimeoutSeconds() > 0
                && !notBlank(upgrade.getWaitForCompletion().getPodSelector())) {
            problems.add(
                    ValidationProblem.warning(
                            base + ".waitForCompletion.timeoutSeconds",
                            "has no effect without waitForCompletion.podSelector"));
        }
    }

    private static void devicePlugin(
            DevicePluginSpec devicePlugin, List<ValidationProblem> problems) {
        if (devicePlugin != null
                && devicePlugin.getConfig() != null
                && notBlank(devicePlugin.getConfig().getDefaultConfig())
                && !notBlank(devicePlugin.getConfig().getName())) {
            problems.add(
                    ValidationProblem.error(
                            "spec.devicePlugin.config.default",
                            "names an entry of the config ConfigMap, so devicePlugin.config.name is required too"));
        }
    }

    private static void dcgmExporter(DcgmExporterSpec exporter, List<ValidationProblem> problems) {
        ServiceMonitorConfig monitor = exporter == null ? null : exporter.getServiceMonitor();
        if (monitor == null
                || monitor.getInterval() == null
                || monitor.getScrapeTimeout() == null) {
            return;
        }
        Duration interval = duration(monitor.getInterval());
        Duration timeout = duration(monitor.getScrapeTimeout());
        if (interval != null && timeout != null && timeout.compareTo(interval) > 0) {
            problems.add(
                    ValidationProblem.error(
                            "spec.dcgmExporter.serviceMonitor.scrapeTimeout",
                            "must not be longer than serviceMonitor.interval ("
                                    + monitor.getInterval()
                                    + ")"));
        }
    }

    private static void simulation(SimulationSpec simulation, List<ValidationProblem> problems) {
        if (simulation == null) {
            return;
        }
        if (simulation.getNodeLabel() != null
                && !LABEL_KEY.matcher(simulation.getNodeLabel()).matches()) {
            problems.add(
                    ValidationProblem.error(
                            "spec.simulation.nodeLabel",
                            "\""
                                    + simulation.getNodeLabel()
                                    + "\" is not a valid Kubernetes label key"));
        }
        if (!simulation.isEnabled()
                && (simulation.getProfile() != null || simulation.getNodeLabel() != null)) {
            problems.add(
                    ValidationProblem.warning(
                            "spec.simulation",
                            "profile and nodeLabel are ignored while simulation.enabled is false"));
        }
    }

    /**
     * Every image section of an enabled operand: an image alone must be a full reference; a digest
     * version must be a full digest. Disabled operands are skipped: upstream's Helm values leave
     * their images incomplete.
     */
    private static void images(ClusterPolicySpec spec, List<ValidationProblem> problems) {
        List<String> disabled = new ArrayList<>();
        SpecWalker.walk(
                spec,
                "spec",
                new SpecWalker.Visitor() {
                    @Override
                    public void property(String path, AnnotatedElement field, Object value) {
                        if (disabled.stream().anyMatch(prefix -> path.startsWith(prefix + "."))) {
                            return;
                        }
                        if (value instanceof ComponentSpec component && !component.isEnabled()) {
                            disabled.add(path);
                        } else if (value instanceof ImageSpec image) {
                            image(path, image, problems);
                        }
                    }

                    @Override
                    public void unknown(String path, Object value) {}
                });
    }

    private static void image(String path, ImageSpec image, List<ValidationProblem> problems) {
        boolean repository = notBlank(image.getRepository());
        boolean version = notBlank(image.getVersion());
        if (notBlank(image.getImage())
                && !repository
                && !version
                && !ImageSpec.isFullImagePath(image.getImage())) {
            problems.add(
                    ValidationProblem.error(
                            path + ".image",
                            "\""
                                    + image.getImage()
                                    + "\" is given without repository and version, so it must be a full image reference such as "
                                    + "nvcr.io/nvidia/driver:595.91.07"));
        }
        if (version
                && image.getVersion().startsWith("sha256:")
                && !DIGEST.matcher(image.getVersion()).matches()) {
            problems.add(
                    ValidationProblem.error(
                            path + ".version",
                            "a digest must be sha256: followed by 64 hex digits"));
        }
    }

    /** Environment variable lists: no empty or repeated names (the last one would silently win). */
    private static void envLists(ClusterPolicySpec spec, List<ValidationProblem> problems) {
        SpecWalker.walk(
                spec,
                "spec",
                new SpecWalker.Visitor() {
                    @Override
                    public void property(String path, AnnotatedElement field, Object value) {
                        if (path.endsWith(".env") && value instanceof List<?> list) {
                            Set<String> seen = new HashSet<>();
                            for (int i = 0; i < list.size(); i++) {
                                if (list.get(i) instanceof EnvVar env && env.getName() != null) {
                                    if (env.getName().isBlank()) {
                                        problems.add(
                                                ValidationProblem.error(
                                                        path + "[" + i + "].name",
                                                        "must not be empty"));
                                    } else if (!seen.add(env.getName())) {
                                        problems.add(
                                                ValidationProblem.warning(
                                                        path + "[" + i + "].name",
                                                        "\""
                                                                + env.getName()
                                                                + "\" is set more than once; the last value wins"));
                                    }
                                }
                            }
                        }
                    }

                    @Override
                    public void unknown(String path, Object value) {}
                });
    }

    private static void countOrPercent(
            String path, String value, List<ValidationProblem> problems) {
        Matcher matcher = PERCENT_OR_COUNT.matcher(value);
        if (!matcher.matches()) {
            problems.add(
                    ValidationProblem.error(
                            path,
                            "\""
                                    + value
                                    + "\" must be a count such as 1 or a percentage such as 25%"));
        } else if (!matcher.group(2).isEmpty() && Long.parseLong(matcher.group(1)) > 100) {
            problems.add(ValidationProblem.error(path, "\"" + value + "\" is more than 100%"));
        }
    }

    /**
     * A Prometheus duration such as 15s or 1m30s; null when it cannot be read (the schema pattern
     * reports that).
     */
    static Duration duration(String text) {
        Matcher matcher = DURATION_PART.matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        while (matcher.find()) {
            if (matcher.start() != end) {
                return null;
            }
            double amount = Double.parseDouble(matcher.group(1));
            long nanosPerUnit =
                    switch (matcher.group(2)) {
                        case "ms" -> 1_000_000L;
                        case "s" -> 1_000_000_000L;
                        case "m" -> 60_000_000_000L;
                        default -> 3_600_000_000_000L;
                    };
            total = total.plusNanos((long) (amount * nanosPerUnit));
            end = matcher.end();
        }
        return end == text.length() && end > 0 ? total : null;
    }

    private static boolean notBlank(String value) {
        return value != null && !value.isBlank();
    }
}
