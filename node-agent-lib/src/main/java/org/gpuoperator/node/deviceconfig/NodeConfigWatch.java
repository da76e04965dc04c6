package org.gpuoperator.node.deviceconfig;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.gpuoperator.node.labels.OwnNodeInformer;

/**
 * Watches the agent's own Node (an informer on {@code metadata.name}) and, when its label {@value
 * ConfigSelection#LABEL} changes, selects and validates the named config and hands it to the agent,
 * which reloads without a restart (what upstream's config-manager sidecar does with a symlink and
 * SIGHUP). A config that is unknown or does not validate is refused with its name and the error;
 * the agent keeps the config in force.
 *
 * <p>With {@code report} (the device plugin, whose resources are what a config changes), the
 * outcome goes on the Node as two annotations, which the controller reads into the ClusterPolicy
 * status: {@value #APPLIED_ANNOTATION} (the config in force; absent for none) and {@value
 * #ERROR_ANNOTATION} (why the last selection was refused; absent after a success). RBAC: {@code
 * nodes} get, list, watch, and patch when reporting.
 *
 * <p>fabric8 is an optional dependency of this library: an agent that uses this class brings it.
 */
public final class NodeConfigWatch implements AutoCloseable {

    public static final String APPLIED_ANNOTATION = "nvidia.com/device-plugin.config.applied";
    public static final String ERROR_ANNOTATION = "nvidia.com/device-plugin.config.error";

    /** The agent's switch to a config; throws (with a message) to refuse it. */
    @FunctionalInterface
    public interface Applier {
        void apply(ConfigSelection.Choice choice);
    }

    private final KubernetesClient client;
    private final String nodeName;
    private final ConfigSelection selection;
    private final boolean report;
    private final EventLog log;

    private Applier applier;
    private boolean seen;
    private String lastLabel;
    private SharedIndexInformer<GenericKubernetesResource> informer;

    public NodeConfigWatch(
            KubernetesClient client,
            String nodeName,
            ConfigSelection selection,
            boolean report,
            EventLog log) {
        this.client = client;
        this.nodeName = nodeName;
        this.selection = selection;
        this.report = report;
        this.log = log;
    }

    /**
     * The config to start with, from the node's label now, once {@code check} (the agent loading it
     * without applying it) accepts it. A refused one is reported (and thrown): there is no config
     * in force yet to keep.
     *
     * @throws RuntimeException naming the config and the error
     */
    public synchronized ConfigSelection.Choice initial(Applier check) {
        ObjectMeta node = OwnNodeInformer.read(client, nodeName);
        if (node == null) {
            throw new ConfigException(
                    "node " + nodeName + " not found (check NODE_NAME / --node-name)");
        }
        String label = label(node);
        seen = true;
        lastLabel = label;
        try {
            ConfigSelection.Choice choice = selection.selectValid(label);
            check.apply(choice);
            reportApplied(choice);
            log.info("config-selected", "config", choice.describe(), "label", show(label));
            return choice;
        } catch (RuntimeException e) {
            reportRefused(e.getMessage());
            throw e;
        }
    }

    /**
     * Starts watching; each later change of the label is selected, validated and given to {@code
     * applier}.
     */
    public synchronized void start(Applier applier) {
        this.applier = applier;
        informer = OwnNodeInformer.inform(client, nodeName, this::onNode);
    }

    /** One observation of the node: acts only when the label changed since the last one. */
    synchronized void onNode(ObjectMeta node) {
        String label = label(node);
        if (seen && Objects.equals(label, lastLabel)) {
            return;
        }
        seen = true;
        lastLabel = label;
        ConfigSelection.Choice choice;
        try {
            choice = selection.selectValid(label);
            applier.apply(choice);
        } catch (RuntimeException e) {
            log.error(
                    "config-refused",
                    "label",
                    show(label),
                    "error",
                    e.getMessage(),
                    "action",
                    "keeping the config in force");
            reportRefused(e.getMessage());
            return;
        }
        log.info("config-applied", "config", choice.describe(), "label", show(label));
        reportApplied(choice);
    }

    private static String label(ObjectMeta node) {
        Map<String, String> labels = node.getLabels();
        return labels == null ? null : labels.get(ConfigSelection.LABEL);
    }

    private static String show(String label) {
        return label == null ? "(absent)" : label;
    }

    private void reportApplied(ConfigSelection.Choice choice) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put(APPLIED_ANNOTATION, choice.name());
        a.put(ERROR_ANNOTATION, null);
        annotate(a);
    }

    private void reportRefused(String error) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put(ERROR_ANNOTATION, error);
        annotate(a);
    }

    /**
     * Our two annotations (null removes one) as one JSON patch of only what differs, so a report
     * that changes nothing writes nothing and other annotations are never touched.
     */
    private void annotate(Map<String, String> annotations) {
        if (!report) {
            return;
        }
        try {
            ObjectMeta node = OwnNodeInformer.read(client, nodeName);
            if (node == null) {
                log.error("config-report-failed", "node", nodeName, "error", "node not found");
                return;
            }
            Map<String, String> current = node.getAnnotations();
            List<Map<String, Object>> ops = new ArrayList<>();
            if (current == null) {
                current = Map.of();
                if (annotations.values().stream().anyMatch(Objects::nonNull)) {
                    ops.add(op("add", "/metadata/annotations", Map.of()));
                }
            }
            for (Map.Entry<String, String> e : annotations.entrySet()) {
                String path = "/metadata/annotations/" + pointer(e.getKey());
                if (e.getValue() == null) {
                    if (current.containsKey(e.getKey())) {
                        ops.add(op("remove", path, null));
                    }
                } else if (!e.getValue().equals(current.get(e.getKey()))) {
                    ops.add(op("add", path, e.getValue()));
                }
            }
            if (ops.isEmpty()) {
                return;
            }
            AgentKubeClient.node(client, nodeName)
                    .patch(
                            PatchContext.of(PatchType.JSON),
                            client.getKubernetesSerialization().asJson(ops));
        } catch (KubernetesClientException e) {
            log.error("config-report-failed", "node", nodeName, "error", e.getMessage());
        }
    }

    private static Map<String, Object> op(String op, String path, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("op", op);
        m.put("path", path);
        if (value != null) {
            m.put("value", value);
        }
        return m;
    }

    /** RFC 6901: {@code ~} and {@code /} escaped in a key. */
    private static String pointer(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    @Override
    public synchronized void close() {
        if (informer != null) {
            informer.close();
        }
    }
}
