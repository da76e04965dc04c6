package org.gpuoperator.validator.plugin;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.gpuoperator.validator.report.CheckResult;

/**
 * This node's allocatable GPU resources, read through the API for the cuda and plugin checks. The
 * node is read as a generic resource: the validator needs its allocatable map and annotations only,
 * and Jackson's deserializer for fabric8's Node model is then never built.
 *
 * @param gpus the resources with a count above 0 (see {@link GpuResources#allocatable})
 * @param problem why the node could not be read, or null
 */
public record NodeGpus(Map<String, Long> gpus, CheckResult problem) {

    public static NodeGpus read(KubernetesClient client, String nodeName) {
        GenericKubernetesResource node;
        try {
            node = AgentKubeClient.node(client, nodeName).get();
        } catch (KubernetesClientException e) {
            return new NodeGpus(
                    Map.of(),
                    CheckResult.failed("cannot read node " + nodeName + ": " + e.getMessage()));
        }
        if (node == null) {
            return new NodeGpus(Map.of(), CheckResult.failed("node " + nodeName + " not found"));
        }
        return new NodeGpus(GpuResources.allocatable(node), null);
    }
}
