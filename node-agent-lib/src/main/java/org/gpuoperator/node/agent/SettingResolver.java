package org.gpuoperator.node.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Resolves one setting the way every agent does, as upstream's agents do: the command-line flag,
 * then the first set environment variable of its names, then the config file's field; empty when
 * none is set (the caller's default applies). The result names its source, so a bad value is
 * reported where the admin wrote it.
 *
 * <p>An empty string counts as unset in the environment (an unset Helm value renders as {@code
 * ""}), but not on the command line, where it was typed on purpose.
 */
public final class SettingResolver {

    /**
     * A raw value (a string, or what YAML gave: a boolean, a number, a list) and where it came
     * from.
     */
    public record Value(Object raw, String source) {

        public String text() {
            return String.valueOf(raw);
        }

        /**
         * The value as a {@code T}: text (a flag, an environment variable, a string field of the
         * file) goes through {@code parse}, which names {@link #source} in its errors; anything
         * else is a value its config file has already checked and typed when it was read.
         */
        @SuppressWarnings("unchecked")
        public <T> T as(BiFunction<String, String, T> parse) {
            return raw instanceof String s ? parse.apply(s, source) : (T) raw;
        }
    }

    private final Map<String, String> env;
    private final Function<String, Optional<Object>> fileField;
    private final String fileName;

    /**
     * @param fileField the config file's value at a dotted field path ({@code flags.migStrategy}),
     *     empty when unset
     * @param fileName how the file is named in sources ({@code /etc/config/config.yaml})
     */
    public SettingResolver(
            Map<String, String> env,
            Function<String, Optional<Object>> fileField,
            String fileName) {
        this.env = env;
        this.fileField = fileField;
        this.fileName = fileName;
    }

    /** Flag and environment only: agents without a config file. */
    public static SettingResolver withoutFile(Map<String, String> env) {
        return new SettingResolver(env, path -> Optional.empty(), "");
    }

    /**
     * @param flag the flag's name as typed ({@code --mig-strategy})
     * @param flagValue its value, null when not given
     * @param envNames the environment variables, first set wins
     * @param filePath the config file's field, or null when the file has none
     */
    public Optional<Value> resolve(
            String flag, Object flagValue, List<String> envNames, String filePath) {
        if (flagValue != null) {
            return Optional.of(new Value(flagValue, flag));
        }
        for (String name : envNames) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                return Optional.of(new Value(v, "environment variable " + name));
            }
        }
        if (filePath == null) {
            return Optional.empty();
        }
        return fileField.apply(filePath).map(v -> new Value(v, fileName + ": " + filePath));
    }

    /** The environment variable {@code name} when it is set to something other than blanks. */
    public Optional<String> env(String name) {
        return Optional.ofNullable(env.get(name)).filter(v -> !v.isBlank());
    }
}
