package org.gpuoperator.exporter.counters;

/**
 * One readable line of a counters file.
 *
 * @param field the DCGM field this project reads for it
 * @param type how it is exposed
 * @param help the HELP text
 * @param line 1-based line number in the file, for messages
 */
public record Counter(DcgmField field, CounterType type, String help, int line) {

    /** The metric (or label) name: the DCGM field name, unchanged, so dashboards keep working. */
    public String name() {
        return field.name();
    }
}
