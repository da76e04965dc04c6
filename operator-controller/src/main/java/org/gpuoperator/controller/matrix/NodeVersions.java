package org.gpuoperator.controller.matrix;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Map;

/**
 * What the matrix checks on a node: kubelet and kernel from {@code status.nodeInfo}, CUDA and the
 * running driver from feature discovery's labels (absent before it ran).
 */
public record NodeVersions(String name, String kubelet, String kernel, String cuda, String driver) {

    public static final String CUDA_LABEL = "nvidia.com/cuda.runtime-version.full";
    public static final String DRIVER_LABEL = "nvidia.com/cuda.driver-version.full";

    public static NodeVersions of(Node node) {
        Map<String, String> labels =
                node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        var info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
        return new NodeVersions(
                node.getMetadata().getName(),
                info == null ? null : info.getKubeletVersion(),
                info == null ? null : info.getKernelVersion(),
                labels.get(CUDA_LABEL),
                labels.get(DRIVER_LABEL));
    }
}
