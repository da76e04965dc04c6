package org.gpuoperator.validator.report;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.gpuoperator.node.labels.NodeLabelPatch;

/**
 * Publishes a {@link NodeReport} as the two annotations on this node, with one JSON patch, and only
 * when their text changed. The node is read and patched as a generic resource ({@link
 * AgentKubeClient#NODES}), as {@link org.gpuoperator.validator.plugin.NodeGpus} reads it.
 */
public final class NodeAnnotations implements ReportSink {

    private final Supplier<KubernetesClient> client;
    private final String nodeName;
    private final String podName;
    private Map<String, String> published;

    /**
     * @param podName this validator's pod ({@code POD_NAME}), written beside the report; null
     *     leaves that annotation out
     */
    public NodeAnnotations(Supplier<KubernetesClient> client, String nodeName, String podName) {
        this.client = client;
        this.nodeName = nodeName;
        this.podName = podName;
    }

    /** The annotations {@code report} sets; a null value removes the annotation. */
    public static Map<String, String> wanted(NodeReport report, String podName) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NodeReport.ANNOTATION, report.annotation());
        m.put(NodeReport.REASON_ANNOTATION, report.reason().orElse(null));
        if (podName != null && !podName.isBlank()) {
            m.put(NodeReport.POD_ANNOTATION, podName);
        }
        return m;
    }

    /**
     * The JSON patch (RFC 6902) that takes the node's {@code current} annotations (null when it has
     * none) to {@code wanted}; null values remove. Empty ({@code []}) when nothing changes. Pure:
     * the agent kit's {@link NodeLabelPatch#annotations}, written with {@code json} (the client's
     * own serialization, not fabric8's static one: a second mapper to build for one patch).
     */
    public static String jsonPatch(
            KubernetesSerialization json, Map<String, String> current, Map<String, String> wanted) {
        return json.asJson(
                NodeLabelPatch.annotations(current == null ? Map.of() : current, wanted)
                        .jsonPatch(true, current != null));
    }

    /** Returns true when it patched the node. */
    @Override
    public boolean publish(NodeReport report) {
        Map<String, String> wanted = wanted(report, podName);
        if (Objects.equals(wanted, published)) {
            return false;
        }
        KubernetesClient api = client.get();
        Resource<GenericKubernetesResource> node = AgentKubeClient.node(api, nodeName);
        GenericKubernetesResource current = node.get();
        if (current == null) {
            throw new IllegalStateException("node " + nodeName + " not found");
        }
        String patch =
                jsonPatch(
                        api.getKubernetesSerialization(),
                        current.getMetadata().getAnnotations(),
                        wanted);
        boolean changed = !patch.equals("[]");
        if (changed) {
            node.patch(PatchContext.of(PatchType.JSON), patch);
        }
        published = wanted;
        return changed;
    }
}
