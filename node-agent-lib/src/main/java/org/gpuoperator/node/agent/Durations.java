package org.gpuoperator.node.agent;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * The one duration syntax of every agent's flags and environment: a bare number of seconds ({@code
 * 300}), Go's units as Kubernetes users type them ({@code 500ms}, {@code 5m}, {@code 1h30m}, {@code
 * 1.5h}) or ISO-8601 ({@code PT5M}). Negative durations are refused.
 */
public final class Durations {

    private static final Pattern GO_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|µs|ms|s|m|h)");
    private static final Pattern SECONDS = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final long SECOND = 1_000_000_000L;

    private Durations() {}

    public static Duration parse(String text) {
        String v = text == null ? "" : text.strip();
        try {
            if (SECONDS.matcher(v).matches()) {
                Nanos n = new Nanos();
                n.add(v, SECOND);
                return n.duration();
            }
            if (v.toUpperCase(Locale.ROOT).startsWith("P")) {
                Duration d = Duration.parse(v.toUpperCase(Locale.ROOT));
                if (d.isNegative()) {
                    throw bad(text);
                }
                return d;
            }
            return goStyle(v, text);
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw bad(text);
        }
    }

    private static Duration goStyle(String v, String text) {
        Matcher m = GO_PART.matcher(v);
        Nanos nanos = new Nanos();
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                throw bad(text);
            }
            nanos.add(
                    m.group(1),
                    switch (m.group(2)) {
                        case "ns" -> 1L;
                        case "us", "µs" -> 1_000L;
                        case "ms" -> 1_000_000L;
                        case "s" -> SECOND;
                        case "m" -> 60 * SECOND;
                        default -> 3600 * SECOND;
                    });
            end = m.end();
        }
        if (end == 0 || end != v.length()) {
            throw bad(text);
        }
        return nanos.duration();
    }

    /**
     * A sum of nanoseconds: whole numbers in a long, fractions exactly in a {@link BigDecimal}
     * rounded half-up once at the end. Whole numbers, the usual case, never touch BigDecimal: its
     * class initialization costs ~20 ms of an agent's start (async-profiler, toolkit-agent).
     */
    private static final class Nanos {
        private long whole;
        private BigDecimal fraction;

        void add(String number, long unit) {
            if (number.indexOf('.') < 0) {
                whole = Math.addExact(whole, Math.multiplyExact(Long.parseLong(number), unit));
            } else {
                BigDecimal part = new BigDecimal(number).multiply(BigDecimal.valueOf(unit));
                fraction = fraction == null ? part : fraction.add(part);
            }
        }

        Duration duration() {
            long rounded =
                    fraction == null
                            ? 0
                            : fraction.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
            return Duration.ofNanos(Math.addExact(whole, rounded));
        }
    }

    /**
     * Go's short form, for help texts and logs: {@code 1h30m}, {@code 30s}, {@code 500ms}, {@code
     * 0s}.
     */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toNanos() % 1_000_000_000L != 0 && d.compareTo(Duration.ofSeconds(1)) < 0) {
            return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toNanos() + "ns";
        }
        StringBuilder sb = new StringBuilder();
        if (d.toHours() > 0) {
            sb.append(d.toHours()).append('h');
        }
        if (d.toMinutesPart() > 0) {
            sb.append(d.toMinutesPart()).append('m');
        }
        if (d.toSecondsPart() > 0 || d.toNanosPart() > 0) {
            sb.append(d.toSecondsPart());
            if (d.toNanosPart() > 0) {
                sb.append('.').append(String.format("%09d", d.toNanosPart()).replaceAll("0+$", ""));
            }
            sb.append('s');
        }
        return sb.toString();
    }

    private static IllegalArgumentException bad(String text) {
        return new IllegalArgumentException(
                "'"
                        + text
                        + "' is not a duration: use seconds (300), units (500ms, 5m, "
                        + "1h30m) or ISO-8601 (PT5M)");
    }

    /** For picocli options. */
    public static final class Converter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        e.getMessage()); // picocli prints it as is
            }
        }
    }
}
