package org.gpuoperator.gfd;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.gpuoperator.gfd.publish.FeaturesFilePublisher;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.gfd.publish.NodeFeaturePublisher;
import org.gpuoperator.gfd.publish.NodeLabelPublisher;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code feature-discovery cleanup}: withdraws what the daemon published for this node (uninstall,
 * or after a switch between publishing modes): the labels it set on the node (per its ownership
 * annotation), the NodeFeature object, or the features.d file with {@code --output-file}.
 */
@Command(
        name = "cleanup",
        description =
                "Removes the labels this node's feature discovery published (node labels it set, its "
                        + "NodeFeature object, or --output-file).")
final class CleanupCommand implements Callable<Integer> {

    @Mixin GpuSourceOptions gpuSource;

    @Mixin CommonOptions common;

    @Override
    public Integer call() {
        Map<String, String> env = System.getenv();
        EventLog log = new EventLog(FeatureDiscoveryMain.COMPONENT);
        String output = common.outputFile != null ? common.outputFile : env.get("GFD_OUTPUT_FILE");
        if (output != null && !output.isEmpty() && !output.equals("-")) {
            new FeaturesFilePublisher(Path.of(output), System.out).remove();
            log.info("output-file-removed", "file", output);
            return 0;
        }
        String node = gpuSource.nodeName();
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            return run(client, node, common.namespace(env), log);
        }
    }

    /**
     * Removes the node labels it set and deletes the NodeFeature object where NFD's API is served.
     */
    static int run(KubernetesClient client, String node, String namespace, EventLog log) {
        LabelPublisher.Outcome outcome =
                new NodeLabelPublisher(client, node).publish(new TreeMap<>());
        log.info("node-labels-removed", "node", node, "removed", outcome.removed());
        if (NodeFeaturePublisher.apiServed(client)) {
            String ns = namespace != null ? namespace : client.getNamespace();
            if (ns != null) {
                String name = NodeFeaturePublisher.NAME_PREFIX + node;
                client.genericKubernetesResources(NodeFeaturePublisher.NODE_FEATURES)
                        .inNamespace(ns)
                        .withName(name)
                        .delete();
                log.info("nodefeature-deleted", "namespace", ns, "name", name);
            }
        }
        return 0;
    }
}
