package org.gpuoperator.validator.report;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.gpuoperator.node.agent.JsonStrings;

/**
 * Publishes a {@link NodeReport} as the two annotations on this node, with one JSON patch, and only
 * when their text changed.
 */
public final class NodeAnnotations implements ReportSink {

    private final KubernetesClient client;
    private final String nodeName;
    private Map<String, String> published;

    public NodeAnnotations(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    /** The annotations {@code report} sets; a null value removes the annotation. */
    public static Map<String, String> wanted(NodeReport report) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NodeReport.ANNOTATION, report.annotation());
        m.put(NodeReport.REASON_ANNOTATION, report.reason().orElse(null));
        return m;
    }

    /**
     * The JSON patch (RFC 6902) that takes the node's {@code current} annotations (null when it has
     * none) to {@code wanted}; null values remove. Empty ({@code []}) when nothing changes. Pure.
     */
    public static String jsonPatch(Map<String, String> current, Map<String, String> wanted) {
        StringBuilder sb = new StringBuilder("[");
        if (current == null) {
            sb.append("{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{}}");
            current = Map.of();
        }
        for (Map.Entry<String, String> e : wanted.entrySet()) {
            String path =
                    "/metadata/annotations/" + e.getKey().replace("~", "~0").replace("/", "~1");
            String op = null;
            if (e.getValue() == null) {
                if (current.containsKey(e.getKey())) {
                    op = "{\"op\":\"remove\",\"path\":" + json(path) + "}";
                }
            } else if (!e.getValue().equals(current.get(e.getKey()))) {
                op =
                        "{\"op\":\"add\",\"path\":"
                                + json(path)
                                + ",\"value\":"
                                + json(e.getValue())
                                + "}";
            }
            if (op != null) {
                if (sb.length() > 1) {
                    sb.append(',');
                }
                sb.append(op);
            }
        }
        return sb.append(']').toString();
    }

    /** Returns true when it patched the node. */
    @Override
    public boolean publish(NodeReport report) {
        Map<String, String> wanted = wanted(report);
        if (Objects.equals(wanted, published)) {
            return false;
        }
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            throw new IllegalStateException("node " + nodeName + " not found");
        }
        String patch = jsonPatch(node.getMetadata().getAnnotations(), wanted);
        boolean changed = !patch.equals("[]");
        if (changed) {
            client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON), patch);
        }
        published = wanted;
        return changed;
    }

    private static String json(String s) {
        return JsonStrings.quote(s);
    }
}
