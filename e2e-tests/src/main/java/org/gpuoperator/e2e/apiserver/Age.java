package org.gpuoperator.e2e.apiserver;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The short ages kubectl users read in AGE columns: 45s, 3m20s, 25m, 5h10m, 20h, 3d4h, 40d, 2y10d.
 */
public final class Age {

    private Age() {}

    /**
     * The age of an RFC 3339 timestamp at {@code now}; "&lt;unknown&gt;" when absent or
     * unparseable.
     */
    public static String since(Object timestamp, Instant now) {
        if (timestamp == null) {
            return "<unknown>";
        }
        try {
            return format(Duration.between(Instant.parse(timestamp.toString()), now));
        } catch (DateTimeParseException e) {
            return "<unknown>";
        }
    }

    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s < -1) {
            return "<invalid>";
        }
        s = Math.max(0, s);
        if (s < 120) {
            return s + "s";
        }
        long m = s / 60;
        if (m < 10) {
            return s % 60 == 0 ? m + "m" : m + "m" + s % 60 + "s";
        }
        if (m < 180) {
            return m + "m";
        }
        long h = m / 60;
        if (h < 8) {
            return m % 60 == 0 ? h + "h" : h + "h" + m % 60 + "m";
        }
        if (h < 48) {
            return h + "h";
        }
        long days = h / 24;
        if (h < 24 * 8) {
            return h % 24 == 0 ? days + "d" : days + "d" + h % 24 + "h";
        }
        if (days < 365 * 2) {
            return days + "d";
        }
        long years = days / 365;
        if (days < 365 * 8) {
            return days % 365 == 0 ? years + "y" : years + "y" + days % 365 + "d";
        }
        return years + "y";
    }
}
