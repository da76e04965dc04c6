package org.gpuoperator.exporter.counters;

import java.util.Locale;

/** The second column of a counters file: how a field is exposed. */
public enum CounterType {
    GAUGE,
    COUNTER,
    HISTOGRAM,
    SUMMARY,
    /** not a metric: the field's string value becomes a label on every other sample */
    LABEL;

    static CounterType parse(String s) {
        try {
            return valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    public String csvName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
