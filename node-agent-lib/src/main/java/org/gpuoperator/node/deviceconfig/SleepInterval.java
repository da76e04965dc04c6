package org.gpuoperator.node.deviceconfig;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Time between two labelling runs, written as upstream writes it: a Go duration ({@code 60s}, {@code 1m30s},
 * {@code 500ms}) or {@code infinite} (label once, then wait for a signal).
 *
 * @param duration empty for infinite
 */
public record SleepInterval(Optional<Duration> duration) {

    public static final SleepInterval DEFAULT = new SleepInterval(Optional.of(Duration.ofSeconds(60)));
    public static final SleepInterval INFINITE = new SleepInterval(Optional.empty());

    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");

    public boolean infinite() {
        return duration.isEmpty();
    }

    /** Parses a Go duration or {@code infinite}; {@code where} names the flag or field for the error. */
    public static SleepInterval parse(String text, String where) {
        String s = text == null ? "" : text.strip();
        if (s.equals("infinite")) {
            return INFINITE;
        }
        Matcher m = PART.matcher(s);
        long nanos = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            double n = Double.parseDouble(m.group(1));
            long unit = switch (m.group(2)) {
                case "ns" -> 1L;
                case "us", "µs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos += Math.round(n * unit);
            end = m.end();
        }
        if (s.isEmpty() || end != s.length()) {
            throw new ConfigException(where + ": invalid duration '" + text
                    + "', expected e.g. 60s, 1m30s or infinite");
        }
        if (nanos <= 0) {
            throw new ConfigException(where + ": the sleep interval must be positive, got '" + text + "'");
        }
        return new SleepInterval(Optional.of(Duration.ofNanos(nanos)));
    }

    /** Written as it is given: {@code 60s}, {@code 500ms}, {@code infinite}. */
    @Override
    public String toString() {
        return duration.map(d -> d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms")
                .orElse("infinite");
    }
}
