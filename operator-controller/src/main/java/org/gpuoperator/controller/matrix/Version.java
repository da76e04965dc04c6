package org.gpuoperator.controller.matrix;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The numeric part of a version as components: {@code v1.31.2-eks-1} is 1.31.2, a kernel {@code
 * 6.8.0-1015-aws} is 6.8.0, a driver {@code 580.65.06} is 580.65.6.
 */
public record Version(List<Integer> parts, String text) implements Comparable<Version> {

    private static final Pattern LEADING = Pattern.compile("^v?(\\d+(?:\\.\\d+)*)");

    /** The version at the start of {@code text}, if it starts with one. */
    public static Optional<Version> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = LEADING.matcher(text.trim());
        if (!m.find()) {
            return Optional.empty();
        }
        List<Integer> parts = new ArrayList<>();
        for (String p : m.group(1).split("\\.")) {
            try {
                parts.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.of(new Version(List.copyOf(parts), text.trim()));
    }

    /** The first component: a driver's branch ({@code 580} of 580.65.06). */
    public int major() {
        return parts.getFirst();
    }

    /** Compares on the components of both; missing ones count as 0. */
    @Override
    public int compareTo(Version o) {
        return compare(o, Math.max(parts.size(), o.parts.size()));
    }

    /**
     * Compares on the first {@code n} components only: 1.35.7 is not after 1.35 when {@code n} is
     * 2.
     */
    int compare(Version o, int n) {
        for (int i = 0; i < n; i++) {
            int a = i < parts.size() ? parts.get(i) : 0;
            int b = i < o.parts.size() ? o.parts.get(i) : 0;
            if (a != b) {
                return Integer.compare(a, b);
            }
        }
        return 0;
    }

    @Override
    public String toString() {
        return text;
    }
}
