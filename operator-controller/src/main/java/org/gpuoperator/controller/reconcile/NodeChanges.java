package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.nodes.PluginConfigReport;
import org.gpuoperator.controller.nodes.ValidationReport;

/**
 * Which nodes changed since the last look: a node whose labels changed, or whose operand pods were
 * added, changed or removed. Found by comparing the informer caches with what the last look saw
 * (resourceVersions first, so an unchanged object costs one string comparison), which keeps the
 * event mappers free of side effects.
 */
final class NodeChanges {

    private record SeenNode(
            String resourceVersion, Map<String, String> labels, String validation, String os) {}

    private record SeenPod(String resourceVersion, String node) {}

    private final Map<String, SeenNode> nodes = new HashMap<>();
    private final Map<String, SeenPod> pods = new HashMap<>();

    /**
     * @return the names of the nodes that changed since the previous call (all of them on the
     *     first)
     */
    synchronized Set<String> since(Stream<Node> nodeCache, Stream<Pod> podCache) {
        Set<String> changed = new HashSet<>();
        Set<String> present = new HashSet<>();
        nodeCache.forEach(
                node -> {
                    String name = node.getMetadata().getName();
                    present.add(name);
                    SeenNode before = nodes.get(name);
                    String version = node.getMetadata().getResourceVersion();
                    if (before != null && Objects.equals(before.resourceVersion(), version)) {
                        return;
                    }
                    Map<String, String> labels = node.getMetadata().getLabels();
                    String validation = validation(node);
                    String os = osAndKernel(node);
                    // status-only updates (kubelet heartbeats) do not matter: the gate reads labels
                    // and the status the validator's annotations
                    if (before == null
                            || !Objects.equals(before.labels(), labels)
                            || !Objects.equals(before.validation(), validation)
                            || !Objects.equals(before.os(), os)) {
                        changed.add(name);
                    }
                    nodes.put(name, new SeenNode(version, labels, validation, os));
                });
        for (var it = nodes.keySet().iterator(); it.hasNext(); ) {
            String name = it.next();
            if (!present.contains(name)) {
                changed.add(name);
                it.remove();
            }
        }
        Set<String> presentPods = new HashSet<>();
        podCache.forEach(
                pod -> {
                    String key =
                            pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
                    presentPods.add(key);
                    String node = OperandPods.nodeOf(pod).stream().findFirst().orElse(null);
                    SeenPod before = pods.get(key);
                    SeenPod now = new SeenPod(pod.getMetadata().getResourceVersion(), node);
                    if (now.equals(before)) {
                        return;
                    }
                    addIfNotNull(changed, node);
                    if (before != null) {
                        addIfNotNull(changed, before.node());
                    }
                    pods.put(key, now);
                });
        for (var it = pods.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!presentPods.contains(entry.getKey())) {
                addIfNotNull(changed, entry.getValue().node());
                it.remove();
            }
        }
        return changed;
    }

    private static void addIfNotNull(Set<String> set, String value) {
        if (value != null) {
            set.add(value);
        }
    }

    /**
     * Whether a node update matters to the reconcile: its labels, the validator's report, what the
     * driver upgrade reads, or its OS and kernel. Called on every node update (kubelets' status
     * reports above all), so it compares in place and builds nothing.
     */
    static boolean matters(Node now, Node before) {
        return !Objects.equals(now.getMetadata().getLabels(), before.getMetadata().getLabels())
                || !sameReadAnnotations(
                        now.getMetadata().getAnnotations(), before.getMetadata().getAnnotations())
                || unschedulable(now) != unschedulable(before)
                || !Objects.equals(readyStatus(now), readyStatus(before))
                || !sameOsAndKernel(now, before);
    }

    /**
     * The annotations of the validator's report and of the device plugin's config report. The
     * report's pod too: the driver upgrade takes a report only from the node's current validator
     * pod, and a new validator pod often reports what the one before it did, word for word.
     */
    private static final String[] VALIDATION_ANNOTATIONS = {
        ValidationReport.ANNOTATION,
        ValidationReport.REASON_ANNOTATION,
        ValidationReport.POD_ANNOTATION,
        PluginConfigReport.APPLIED_ANNOTATION,
        PluginConfigReport.ERROR_ANNOTATION
    };

    /** The validator's and device plugin's annotations, and the driver upgrade's (by prefix). */
    private static boolean sameReadAnnotations(
            Map<String, String> now, Map<String, String> before) {
        now = now == null ? Map.of() : now;
        before = before == null ? Map.of() : before;
        for (String key : VALIDATION_ANNOTATIONS) {
            if (!Objects.equals(now.get(key), before.get(key))) {
                return false;
            }
        }
        int upgradeKeys = 0;
        for (Map.Entry<String, String> e : now.entrySet()) {
            if (e.getKey().startsWith(UPGRADE_PREFIX)) {
                upgradeKeys++;
                if (!Objects.equals(e.getValue(), before.get(e.getKey()))) {
                    return false;
                }
            }
        }
        for (String key : before.keySet()) {
            if (key.startsWith(UPGRADE_PREFIX)) {
                upgradeKeys--;
            }
        }
        return upgradeKeys == 0;
    }

    private static boolean unschedulable(Node node) {
        return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    }

    /** The Ready condition's status (a NotReady node's upgrade is parked), null without one. */
    private static String readyStatus(Node node) {
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            return null;
        }
        for (var c : node.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return c.getStatus();
            }
        }
        return null;
    }

    private static boolean sameOsAndKernel(Node now, Node before) {
        var a = now.getStatus() == null ? null : now.getStatus().getNodeInfo();
        var b = before.getStatus() == null ? null : before.getStatus().getNodeInfo();
        if (a == null || b == null) {
            return a == b;
        }
        return Objects.equals(a.getOsImage(), b.getOsImage())
                && Objects.equals(a.getKernelVersion(), b.getKernelVersion());
    }

    /**
     * The OS image and kernel the kubelet reports: in NVIDIADriver mode they choose the node's
     * driver pool (NFD's labels, when present, change with them).
     */
    private static String osAndKernel(Node node) {
        if (node.getStatus() == null || node.getStatus().getNodeInfo() == null) {
            return null;
        }
        return node.getStatus().getNodeInfo().getOsImage()
                + "\n"
                + node.getStatus().getNodeInfo().getKernelVersion();
    }

    private static final String UPGRADE_PREFIX = "nvidia.com/gpu-driver-upgrade";

    /**
     * The validator's two annotations and the device plugin's config report, as one comparable
     * value.
     */
    private static String validation(Node node) {
        Map<String, String> a = node.getMetadata().getAnnotations();
        if (a == null) {
            return null;
        }
        java.util.StringJoiner values = new java.util.StringJoiner("\n");
        boolean any = false;
        for (String key : VALIDATION_ANNOTATIONS) {
            String value = a.get(key);
            any |= value != null;
            values.add(String.valueOf(value));
        }
        return any ? values.toString() : null;
    }
}
