package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The order in which our deploy labels ({@code nvidia.com/gpu.deploy.<step>=true}) appeared on each
 * node, recorded from a node watch: the scenarios assert the gates open in pipeline order, which
 * the final labels cannot show.
 */
public final class GateOrder implements Watcher<Node>, AutoCloseable {

    private final Map<String, List<String>> order = new ConcurrentHashMap<>();
    private Watch watch;

    private GateOrder() {}

    /** Starts watching all nodes; close it to stop. */
    public static GateOrder watch(KubernetesClient client) {
        GateOrder recorder = new GateOrder();
        recorder.watch = client.nodes().watch(recorder);
        return recorder;
    }

    /**
     * The steps whose deploy label this node has carried, in the order they first appeared; empty
     * if none.
     */
    public List<String> of(String node) {
        return order.getOrDefault(node, List.of());
    }

    @Override
    public void eventReceived(Action action, Node node) {
        Map<String, String> labels =
                node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        List<String> steps =
                order.computeIfAbsent(
                        node.getMetadata().getName(),
                        k -> Collections.synchronizedList(new ArrayList<>()));
        for (String step : NodeProgress.STEPS.keySet()) {
            if ("true".equals(labels.get("nvidia.com/gpu.deploy." + step))
                    && !steps.contains(step)) {
                steps.add(step);
            }
        }
    }

    @Override
    public void onClose(WatcherException cause) {}

    @Override
    public void close() {
        if (watch != null) {
            watch.close();
        }
    }
}
