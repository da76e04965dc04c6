package org.gpuoperator.gfd;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.gfd.labels.LabelConfig;
import org.gpuoperator.gfd.labels.Sharing;
import org.gpuoperator.node.agent.SettingResolver;
import org.gpuoperator.node.deviceconfig.ConfigField;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SharingConfig;
import org.gpuoperator.node.deviceconfig.SleepInterval;

/**
 * The settings of one labelling run, resolved as upstream resolves them: command-line flag, then
 * environment variable, then the config file, then the default. Re-resolved on SIGHUP, since the
 * config file may have changed.
 *
 * @param labels MIG strategy and sharing
 * @param noTimestamp leave out {@code gfd.timestamp}
 * @param oneshot label once and exit
 * @param sleepInterval time between runs
 * @param outputFile write an NFD features.d file instead of using the API; {@code ""} means
 *     standard output
 * @param machineTypeFile DMI product name file, read under the host root
 * @param nodeFeatureApi whether to publish through NFD's NodeFeature API
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
    public enum NodeFeatureApi {
        AUTO,
        TRUE,
        FALSE
    }

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

        public Flags withConfigFile(Path file) {
            return new Flags(
                    migStrategy,
                    oneshot,
                    noTimestamp,
                    sleepInterval,
                    outputFile,
                    machineTypeFile,
                    useNodeFeatureApi,
                    file);
        }
    }

    /**
     * The config file named by the flag or by {@code GFD_CONFIG_FILE} / {@code CONFIG_FILE}, if
     * any.
     */
    public static Optional<Path> configFile(Flags flags, Map<String, String> env) {
        return SettingResolver.withoutFile(env)
                .resolve(
                        "--config-file",
                        flags.configFile(),
                        List.of("GFD_CONFIG_FILE", "CONFIG_FILE"),
                        null)
                .map(v -> v.as((text, source) -> Path.of(text)));
    }

    /**
     * Resolves every setting with the kit's {@link SettingResolver}; a bad value is reported with
     * the flag, the variable or the file's field it came from.
     */
    public static Settings resolve(Flags flags, Map<String, String> env, ConfigFile file) {
        SettingResolver r = file.resolver(env);
        MigStrategy mig =
                r.resolve(
                                "--mig-strategy",
                                flags.migStrategy(),
                                List.of("GFD_MIG_STRATEGY", "MIG_STRATEGY"),
                                ConfigField.MIG_STRATEGY.path())
                        .map(v -> v.as(ConfigField.MIG_STRATEGY::parse))
                        .orElse(MigStrategy.NONE);
        boolean oneshot =
                r.resolve(
                                "--oneshot",
                                flags.oneshot(),
                                List.of("GFD_ONESHOT"),
                                ConfigField.GFD_ONESHOT.path())
                        .map(v -> v.as(Settings::parseBool))
                        .orElse(false);
        boolean noTimestamp =
                r.resolve(
                                "--no-timestamp",
                                flags.noTimestamp(),
                                List.of("GFD_NO_TIMESTAMP"),
                                ConfigField.GFD_NO_TIMESTAMP.path())
                        .map(v -> v.as(Settings::parseBool))
                        .orElse(false);
        SleepInterval sleep =
                r.resolve(
                                "--sleep-interval",
                                flags.sleepInterval(),
                                List.of("GFD_SLEEP_INTERVAL"),
                                ConfigField.GFD_SLEEP_INTERVAL.path())
                        .map(v -> v.as(SleepInterval::parse))
                        .orElse(SleepInterval.DEFAULT);
        Optional<String> output =
                r.resolve(
                                "--output-file",
                                flags.outputFile(),
                                List.of("GFD_OUTPUT_FILE"),
                                ConfigField.GFD_OUTPUT_FILE.path())
                        .map(SettingResolver.Value::text);
        String machineType =
                r.resolve(
                                "--machine-type-file",
                                flags.machineTypeFile(),
                                List.of("GFD_MACHINE_TYPE_FILE"),
                                ConfigField.GFD_MACHINE_TYPE_FILE.path())
                        .map(SettingResolver.Value::text)
                        .orElse(DEFAULT_MACHINE_TYPE_FILE);
        NodeFeatureApi api =
                r.resolve(
                                "--use-node-feature-api",
                                flags.useNodeFeatureApi(),
                                List.of("GFD_USE_NODE_FEATURE_API", "USE_NODE_FEATURE_API"),
                                ConfigField.USE_NODE_FEATURE_API.path())
                        .map(
                                v ->
                                        v.raw() instanceof Boolean b
                                                ? (b ? NodeFeatureApi.TRUE : NodeFeatureApi.FALSE)
                                                : nodeFeatureApi(v.text(), v.source()))
                        .orElse(NodeFeatureApi.AUTO);
        return new Settings(
                new LabelConfig(mig, sharing(file.sharing())),
                noTimestamp,
                oneshot,
                sleep,
                output,
                machineType,
                api);
    }

    /**
     * What the labels need of the plugin's sharing (time-slicing or MPS). An explicit {@code
     * rename} is not looked at: upstream's GFD ignores it, so a renamed resource is still labelled
     * as shared.
     */
    static Sharing sharing(SharingConfig config) {
        if (config.resources().isEmpty()) {
            return Sharing.NONE;
        }
        Map<String, Integer> replicas = new LinkedHashMap<>();
        config.resources().forEach(r -> replicas.put(r.name(), r.replicas()));
        Sharing.Strategy strategy =
                config.mps() ? Sharing.Strategy.MPS : Sharing.Strategy.TIME_SLICING;
        return new Sharing(strategy, config.renameByDefault(), replicas);
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
            throw new IllegalArgumentException(
                    source + ": invalid value '" + v + "', expected auto, true or false");
        }
    }
}
