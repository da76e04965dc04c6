package org.gpuoperator.validator.report;

/** Where one check stands; the lower-case name is what the node annotation shows. */
public enum CheckState {
    READY,
    WAITING,
    FAILED,
    DISABLED;

    public String text() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
