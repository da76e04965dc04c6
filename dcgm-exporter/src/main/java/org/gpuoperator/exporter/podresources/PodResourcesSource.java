package org.gpuoperator.exporter.podresources;

import java.util.List;

/** Who holds which devices on this node: the kubelet's pod-resources List, or a fake in tests. */
public interface PodResourcesSource extends AutoCloseable {

    /**
     * @throws PodResourcesUnavailableException when the source cannot be asked now (socket missing,
     *     kubelet down)
     */
    List<ContainerDevices> list();

    /**
     * Whether the source can be asked at all, without asking it (e.g. the socket file exists).
     *
     * @throws PodResourcesUnavailableException when it cannot
     */
    default void checkReachable() {}

    @Override
    default void close() {}
}
