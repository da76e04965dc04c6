package org.gpuoperator.exporter.podresources;

/**
 * The pod-resources API cannot be reached; {@code missing} when its socket does not exist at all.
 */
public class PodResourcesUnavailableException extends RuntimeException {
    private final boolean missing;

    public PodResourcesUnavailableException(String message, boolean missing) {
        super(message);
        this.missing = missing;
    }

    public boolean missing() {
        return missing;
    }
}
