package org.gpuoperator.controller.events;

/** The two Event types Kubernetes knows. */
public enum EventType {
    NORMAL("Normal"),
    WARNING("Warning");

    private final String value;

    EventType(String value) {
        this.value = value;
    }

    public String value() {
        return value;
    }
}
