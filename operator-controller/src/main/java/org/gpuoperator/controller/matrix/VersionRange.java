package org.gpuoperator.controller.matrix;

/**
 * An inclusive range; a {@code max} with fewer components covers every version it prefixes (max
 * 1.35 includes 1.35.7).
 */
public record VersionRange(Version min, Version max) {

    public boolean contains(Version v) {
        return v.compareTo(min) >= 0 && v.compare(max, max.parts().size()) <= 0;
    }

    @Override
    public String toString() {
        return min + " to " + max;
    }
}
