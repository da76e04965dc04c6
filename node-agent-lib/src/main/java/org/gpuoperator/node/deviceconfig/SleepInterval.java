package org.gpuoperator.node.deviceconfig;

import java.time.Duration;
import java.util.Optional;
import org.gpuoperator.node.agent.Durations;

/**
 * Time between two labelling runs: what upstream accepts, a Go duration ({@code 60s}, {@code
 * 1m30s}, {@code 500ms}) or {@code infinite} (label once, then wait for a signal), and, as every
 * agent's durations, a bare number of seconds ({@code 300}) or ISO-8601 ({@code PT5M}): the
 * duration part is the kit's {@link Durations#parse}.
 *
 * @param duration empty for infinite
 */
public record SleepInterval(Optional<Duration> duration) {

    public static final SleepInterval DEFAULT =
            new SleepInterval(Optional.of(Duration.ofSeconds(60)));
    public static final SleepInterval INFINITE = new SleepInterval(Optional.empty());

    public boolean infinite() {
        return duration.isEmpty();
    }

    /**
     * Parses a duration or {@code infinite}; {@code where} names the flag, variable or field for
     * the error.
     */
    public static SleepInterval parse(String text, String where) {
        String s = text == null ? "" : text.strip();
        if (s.equals("infinite")) {
            return INFINITE;
        }
        Duration d;
        try {
            d = Durations.parse(s);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(where + ": " + e.getMessage() + ", or infinite");
        }
        if (d.isZero()) {
            throw new ConfigException(
                    where + ": the sleep interval must be positive, got '" + text + "'");
        }
        return new SleepInterval(Optional.of(d));
    }

    /**
     * Go style, as {@link Durations#format}: {@code 1m}, {@code 1m30s}, {@code 500ms}, or {@code
     * infinite}.
     */
    @Override
    public String toString() {
        return duration.map(Durations::format).orElse("infinite");
    }
}
