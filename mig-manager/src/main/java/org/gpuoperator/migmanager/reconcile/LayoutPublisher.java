package org.gpuoperator.migmanager.reconcile;

import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * Tells the node the MIG layout in force before the GPU clients come back, so that what they
 * advertise resolves: the CDI spec must name the new MIG devices (upstream's MIG manager
 * regenerates it itself; here the toolkit, which writes it, is told).
 */
@FunctionalInterface
public interface LayoutPublisher {

    LayoutPublisher NONE = layouts -> {};

    /** Publishes {@code layouts} (GPU → layout) and waits, bounded, until the node follows. */
    void publish(Map<Integer, Layout> layouts) throws InterruptedException;

    /** A short, stable text of a node's layouts: {@code 0=1g.5gb+1g.5gb;1=off;2=on}. */
    static String fingerprint(Map<Integer, Layout> layouts) {
        return new java.util.TreeMap<>(layouts)
                .entrySet().stream()
                        .map(
                                e ->
                                        e.getKey()
                                                + "="
                                                + (!e.getValue().enabled()
                                                        ? "off"
                                                        : e.getValue().devices().isEmpty()
                                                                ? "on"
                                                                : String.join(
                                                                        "+",
                                                                        e.getValue().devices())))
                        .collect(Collectors.joining(";"));
    }
}
