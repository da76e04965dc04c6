package org.gpuoperator.gfd;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.gfd.labels.LabelConfig;
import org.gpuoperator.gfd.labels.Sharing;
import org.gpuoperator.node.deviceconfig.ConfigField;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SleepInterval;
import org.gpuoperator.node.deviceconfig.TimeSlicing;

/**
 * The settings of one labelling run, resolved as upstream resolves them: command-line flag, then environment
 * variable, then the config file, then the default. Re-resolved on SIGHUP, since the config file may have changed.
 *
 * @param labels          MIG strategy and sharing
 * @param noTimestamp     leave out {@code gfd.timestamp}
 * @param oneshot         label once and exit
 * @param sleepInterval   time between runs
 * @param outputFile      write an NFD features.d file instead of using the API; {@code ""} means standard output
 * @param machineTypeFile DMI product name file, read under the host root
 * @param nodeFeatureApi  whether to publish through NFD's NodeFeature API
 */
public record Settings(
        LabelConfig labels,
        boolean noTimestamp,
        boolean oneshot,
        SleepInterval sleepInterval,
        Optional<String> outputFile,
        String machineTypeFile,
        NodeFeatureApi nodeFeatureApi) {

    public static final String DEFAULT_MACHINE_TYPE_FILE = "/sys/class/dmi/id/product_name";

    /** {@code --use-node-feature-api}: {@code auto} uses it when the API server serves it. */
    public enum NodeFeatureApi { AUTO, TRUE, FALSE }

    /** Values given on the command line; null where the flag was not given. */
    public record Flags(
            String migStrategy,
            Boolean oneshot,
            Boolean noTimestamp,
            String sleepInterval,
            String outputFile,
            String machineTypeFile,
            String useNodeFeatureApi,
            Path configFile) {

        public static final Flags NONE = new Flags(null, null, null, null, null, null, null, null);
    }

    /** The config file named by the flag or by {@code GFD_CONFIG_FILE} / {@code CONFIG_FILE}, if any. */
    public static Optional<Path> configFile(Flags flags, Map<String, String> env) {
        if (flags.configFile() != null) {
            return Optional.of(flags.configFile());
        }
        return env(env, "GFD_CONFIG_FILE", "CONFIG_FILE").filter(s -> !s.isBlank()).map(Path::of);
    }

    /** Resolves every setting; a bad value is reported with the flag, variable or field it came from. */
    public static Settings resolve(Flags flags, Map<String, String> env, ConfigFile file) {
        MigStrategy mig = pick(flags.migStrategy(), "--mig-strategy", env, "GFD_MIG_STRATEGY", "MIG_STRATEGY")
                .map(s -> ConfigField.MIG_STRATEGY.parse(s.value(), s.source()))
                .or(() -> file.get(ConfigField.MIG_STRATEGY)).orElse(MigStrategy.NONE);
        boolean oneshot = bool(flags.oneshot(), env, "GFD_ONESHOT")
                .or(() -> file.get(ConfigField.GFD_ONESHOT)).orElse(false);
        boolean noTimestamp = bool(flags.noTimestamp(), env, "GFD_NO_TIMESTAMP")
                .or(() -> file.get(ConfigField.GFD_NO_TIMESTAMP)).orElse(false);
        SleepInterval sleep = pick(flags.sleepInterval(), "--sleep-interval", env, "GFD_SLEEP_INTERVAL")
                .map(s -> SleepInterval.parse(s.value(), s.source()))
                .or(() -> file.get(ConfigField.GFD_SLEEP_INTERVAL)).orElse(SleepInterval.DEFAULT);
        Optional<String> output = pick(flags.outputFile(), "--output-file", env, "GFD_OUTPUT_FILE")
                .map(Source::value).or(() -> file.get(ConfigField.GFD_OUTPUT_FILE));
        String machineType = pick(flags.machineTypeFile(), "--machine-type-file", env, "GFD_MACHINE_TYPE_FILE")
                .map(Source::value).or(() -> file.get(ConfigField.GFD_MACHINE_TYPE_FILE))
                .orElse(DEFAULT_MACHINE_TYPE_FILE);
        NodeFeatureApi api = pick(flags.useNodeFeatureApi(), "--use-node-feature-api", env,
                "GFD_USE_NODE_FEATURE_API", "USE_NODE_FEATURE_API")
                .map(s -> nodeFeatureApi(s.value(), s.source()))
                .or(() -> file.get(ConfigField.USE_NODE_FEATURE_API)
                        .map(b -> b ? NodeFeatureApi.TRUE : NodeFeatureApi.FALSE))
                .orElse(NodeFeatureApi.AUTO);
        return new Settings(new LabelConfig(mig, sharing(file.timeSlicing())), noTimestamp, oneshot, sleep, output,
                machineType, api);
    }

    /**
     * What the labels need of the plugin's time-slicing. An explicit {@code rename} is not looked at: upstream's GFD
     * ignores it, so a renamed resource is still labelled as shared.
     */
    static Sharing sharing(TimeSlicing timeSlicing) {
        if (timeSlicing.resources().isEmpty()) {
            return Sharing.NONE;
        }
        Map<String, Integer> replicas = new LinkedHashMap<>();
        timeSlicing.resources().forEach(r -> replicas.put(r.name(), r.replicas()));
        return new Sharing(Sharing.Strategy.TIME_SLICING, timeSlicing.renameByDefault(), replicas);
    }

    private record Source(String value, String source) {}

    private static Optional<Source> pick(String flag, String flagName, Map<String, String> env, String... names) {
        if (flag != null) {
            return Optional.of(new Source(flag, flagName));
        }
        for (String n : names) {
            String v = env.get(n);
            if (v != null && !v.isEmpty()) {
                return Optional.of(new Source(v, "environment variable " + n));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> env(Map<String, String> env, String... names) {
        for (String n : names) {
            String v = env.get(n);
            if (v != null && !v.isEmpty()) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    private static Optional<Boolean> bool(Boolean flag, Map<String, String> env, String name) {
        if (flag != null) {
            return Optional.of(flag);
        }
        return env(env, name).map(v -> parseBool(v, "environment variable " + name));
    }

    /** Go's strconv.ParseBool, which upstream's flags use. */
    static boolean parseBool(String v, String source) {
        return switch (v.strip()) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False" -> false;
            default -> throw new IllegalArgumentException(source + ": invalid boolean '" + v + "'");
        };
    }

    static NodeFeatureApi nodeFeatureApi(String v, String source) {
        String s = v.strip().toLowerCase(Locale.ROOT);
        if (s.equals("auto")) {
            return NodeFeatureApi.AUTO;
        }
        try {
            return parseBool(s, source) ? NodeFeatureApi.TRUE : NodeFeatureApi.FALSE;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(source + ": invalid value '" + v + "', expected auto, true or false");
        }
    }
}
