package org.gpuoperator.exporter.podresources;

import java.util.Comparator;

/**
 * A container that holds a GPU: the {@code pod}, {@code namespace} and {@code container} labels.
 */
public record ContainerRef(String pod, String namespace, String container)
        implements Comparable<ContainerRef> {

    private static final Comparator<ContainerRef> ORDER =
            Comparator.comparing(ContainerRef::namespace)
                    .thenComparing(ContainerRef::pod)
                    .thenComparing(ContainerRef::container);

    @Override
    public int compareTo(ContainerRef o) {
        return ORDER.compare(this, o);
    }
}
