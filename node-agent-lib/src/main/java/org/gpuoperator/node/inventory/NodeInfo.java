package org.gpuoperator.node.inventory;

/**
 * Node-wide driver facts.
 *
 * @param driverVersion kernel driver version, e.g. {@code 550.54.15}
 * @param cudaDriverVersion CUDA driver API version as NVML reports it, e.g. 12040 for 12.4
 * @param nvmlVersion NVML library version, e.g. {@code 12.550.54.15}
 */
public record NodeInfo(String driverVersion, int cudaDriverVersion, String nvmlVersion) {

    public int cudaMajor() {
        return cudaDriverVersion / 1000;
    }

    public int cudaMinor() {
        return (cudaDriverVersion % 1000) / 10;
    }
}
