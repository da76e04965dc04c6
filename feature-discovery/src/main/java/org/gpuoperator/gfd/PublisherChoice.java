package org.gpuoperator.gfd;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.gfd.publish.NodeFeaturePublisher;
import org.gpuoperator.gfd.publish.NodeLabelPublisher;
import org.gpuoperator.gfd.publish.PublishException;
import org.gpuoperator.node.agent.EventLog;

/**
 * Picks the API publisher: a NodeFeature object when NFD's API is served (or required), else the
 * node's labels.
 */
final class PublisherChoice {

    private PublisherChoice() {}

    static LabelPublisher choose(
            KubernetesClient client,
            Settings.NodeFeatureApi mode,
            String namespace,
            String podName,
            String nodeName,
            EventLog log) {
        boolean useNodeFeature =
                switch (mode) {
                    case TRUE -> true;
                    case FALSE -> false;
                    case AUTO -> NodeFeaturePublisher.apiServed(client);
                };
        if (!useNodeFeature) {
            return new NodeLabelPublisher(client, nodeName);
        }
        if (mode == Settings.NodeFeatureApi.TRUE && !NodeFeaturePublisher.apiServed(client)) {
            throw new PublishException(
                    "--use-node-feature-api=true but the API server does not serve "
                            + NodeFeaturePublisher.API_VERSION
                            + " (is NFD's NodeFeature CRD installed?)");
        }
        String ns = namespace != null ? namespace : client.getNamespace();
        if (ns == null || ns.isBlank()) {
            throw new PublishException(
                    "the NodeFeature object needs a namespace: set --namespace or NAMESPACE");
        }
        var owners = NodeFeaturePublisher.ownerReferencesOf(client, ns, podName);
        if (podName != null && owners.isEmpty()) {
            log.warn(
                    "no-owner-references",
                    "pod",
                    podName,
                    "detail",
                    "pod not readable or not owned by a DaemonSet; the NodeFeature object will not be garbage-collected with it");
        }
        return new NodeFeaturePublisher(client, ns, nodeName, owners);
    }
}
