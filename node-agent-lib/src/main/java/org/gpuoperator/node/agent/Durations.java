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

    private Durations() {}

    public static Duration parse(String text) {
        String v = text == null ? "" : text.strip();
        try {
            if (SECONDS.matcher(v).matches()) {
                return ofNanos(new BigDecimal(v).movePointRight(9));
            }
            if (v.toUpperCase(Locale.ROOT).startsWith("P")) {
                Duration d = Duration.parse(v.toUpperCase(Locale.ROOT));
                if (d.isNegative()) {
                    throw bad(text);
                }
                return d;
            }
            return goStyle(v, text);
        } catch (DateTimeParseException | ArithmeticException e) {
            throw bad(text);
        }
    }

    private static Duration goStyle(String v, String text) {
        Matcher m = GO_PART.matcher(v);
        BigDecimal nanos = BigDecimal.ZERO;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                throw bad(text);
            }
            BigDecimal n = new BigDecimal(m.group(1));
            nanos =
                    nanos.add(
                            switch (m.group(2)) {
                                case "ns" -> n;
                                case "us", "µs" -> n.movePointRight(3);
                                case "ms" -> n.movePointRight(6);
                                case "s" -> n.movePointRight(9);
                                case "m" -> n.multiply(BigDecimal.valueOf(60)).movePointRight(9);
                                default -> n.multiply(BigDecimal.valueOf(3600)).movePointRight(9);
                            });
            end = m.end();
        }
        if (end == 0 || end != v.length()) {
            throw bad(text);
        }
        return ofNanos(nanos);
    }

    private static Duration ofNanos(BigDecimal nanos) {
        return Duration.ofNanos(nanos.setScale(0, java.math.RoundingMode.HALF_UP).longValueExact());
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
