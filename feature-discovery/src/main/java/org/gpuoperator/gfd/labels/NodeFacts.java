package org.gpuoperator.gfd.labels;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.NodeInfo;

/**
 * Everything read from the node that the labels depend on, gathered once so that label computation
 * is pure.
 *
 * @param driver driver and CUDA versions
 * @param gpus the node's GPUs
 * @param machineType the raw DMI product name, empty when it could not be read
 * @param pciClasses the PCI class of each GPU (e.g. {@code 0x030200}); empty when sysfs could not
 *     be read
 */
public record NodeFacts(
        NodeInfo driver, List<Gpu> gpus, Optional<String> machineType, List<String> pciClasses) {

    public NodeFacts {
        Objects.requireNonNull(driver, "driver");
        gpus = List.copyOf(gpus);
        Objects.requireNonNull(machineType, "machineType");
        pciClasses = List.copyOf(pciClasses);
    }
}
