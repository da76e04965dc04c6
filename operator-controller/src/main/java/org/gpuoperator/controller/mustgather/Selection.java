package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.gpuoperator.controller.nodes.NodeLabels;

/** Pure: which objects, logs and endpoints go into the bundle, and in what shape. */
public final class Selection {

    /** The operator Deployment's pod label (deploy/operator.yaml). */
    public static final String CONTROLLER_COMPONENT_LABEL = "app.kubernetes.io/component";

    public static final String CONTROLLER_COMPONENT = "operator-controller";

    /** The controller's metrics port when its container names none {@code metrics}. */
    public static final int DEFAULT_METRICS_PORT = 8080;

    /** Kinds whose events in any namespace belong in the bundle. */
    public static final List<String> CLUSTER_EVENT_KINDS =
            List.of("Node", "ClusterPolicy", "NVIDIADriver");

    private static final String SIMULATED_GPU_LABEL = "gpuoperator.org/simulated-gpu";

    private Selection() {}

    /**
     * A GPU node: {@code nvidia.com/gpu.present=true}, any other {@code nvidia.com/} label (the
     * operator's and feature discovery's), NFD's NVIDIA PCI labels or the simulated-GPU marker: so
     * a GPU node the operator has not labelled yet is in the bundle too.
     */
    public static boolean isGpuNode(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        if (labels == null) {
            return false;
        }
        if ("true".equals(labels.get(NodeLabels.GPU_PRESENT))) {
            return true;
        }
        for (Map.Entry<String, String> l : labels.entrySet()) {
            if (l.getKey().startsWith("nvidia.com/")
                    && !l.getKey().equals(NodeLabels.GPU_PRESENT)) {
                return true;
            }
            if ((NodeLabels.NFD_GPU_LABELS.contains(l.getKey())
                            || l.getKey().equals(SIMULATED_GPU_LABEL))
                    && "true".equals(l.getValue())) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the bundle keeps of a GPU node: labels, conditions, allocatable and capacity, taints,
     * cordon, node info and the {@code nvidia.com/} annotations (the validator's reports).
     */
    public static Map<String, Object> nodeReport(Node node) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", node.getMetadata().getName());
        out.put("labels", sorted(node.getMetadata().getLabels()));
        Map<String, String> annotations = new java.util.TreeMap<>();
        if (node.getMetadata().getAnnotations() != null) {
            node.getMetadata()
                    .getAnnotations()
                    .forEach(
                            (k, v) -> {
                                if (k.startsWith("nvidia.com/")) {
                                    annotations.put(k, v);
                                }
                            });
        }
        out.put("annotations", annotations);
        if (node.getSpec() != null) {
            out.put("unschedulable", Boolean.TRUE.equals(node.getSpec().getUnschedulable()));
            out.put("taints", toMaps(node.getSpec().getTaints()));
        }
        if (node.getStatus() != null) {
            out.put("conditions", toMaps(node.getStatus().getConditions()));
            out.put("allocatable", quantities(node.getStatus().getAllocatable()));
            out.put("capacity", quantities(node.getStatus().getCapacity()));
            out.put("nodeInfo", toMap(node.getStatus().getNodeInfo()));
        }
        return out;
    }

    /** A log to fetch: a container's current or previous run. */
    public record LogTarget(String container, boolean previous) {}

    /**
     * Every container's (init containers first) current log, and its previous run's where its
     * status shows one (a restart or a last terminated state).
     */
    public static List<LogTarget> logTargets(Pod pod) {
        List<LogTarget> out = new ArrayList<>();
        List<ContainerStatus> statuses = new ArrayList<>();
        if (pod.getStatus() != null) {
            if (pod.getStatus().getInitContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getInitContainerStatuses());
            }
            if (pod.getStatus().getContainerStatuses() != null) {
                statuses.addAll(pod.getStatus().getContainerStatuses());
            }
        }
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec() != null) {
            if (pod.getSpec().getInitContainers() != null) {
                containers.addAll(pod.getSpec().getInitContainers());
            }
            if (pod.getSpec().getContainers() != null) {
                containers.addAll(pod.getSpec().getContainers());
            }
        }
        for (Container c : containers) {
            out.add(new LogTarget(c.getName(), false));
            statuses.stream()
                    .filter(s -> c.getName().equals(s.getName()))
                    .filter(
                            s ->
                                    (s.getRestartCount() != null && s.getRestartCount() > 0)
                                            || (s.getLastState() != null
                                                    && s.getLastState().getTerminated() != null))
                    .findFirst()
                    .ifPresent(s -> out.add(new LogTarget(c.getName(), true)));
        }
        return out;
    }

    /** The controller's pods in the operator namespace (not being deleted). */
    public static List<Pod> controllerPods(List<Pod> pods) {
        return pods.stream()
                .filter(
                        p ->
                                p.getMetadata().getLabels() != null
                                        && CONTROLLER_COMPONENT.equals(
                                                p.getMetadata()
                                                        .getLabels()
                                                        .get(CONTROLLER_COMPONENT_LABEL)))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                .toList();
    }

    /** The container port named {@code metrics}, else {@value #DEFAULT_METRICS_PORT}. */
    public static int metricsPort(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getContainers() == null
                ? DEFAULT_METRICS_PORT
                : pod.getSpec().getContainers().stream()
                        .flatMap(
                                c ->
                                        c.getPorts() == null
                                                ? Stream.<ContainerPort>empty()
                                                : c.getPorts().stream())
                        .filter(p -> "metrics".equals(p.getName()))
                        .map(ContainerPort::getContainerPort)
                        .findFirst()
                        .orElse(DEFAULT_METRICS_PORT);
    }

    /**
     * Of the events of other namespaces: those about a GPU node, a ClusterPolicy or an NVIDIADriver
     * (not those of the operator namespace, which are kept whole), oldest first.
     */
    public static List<Event> clusterEvents(
            List<Event> events, Set<String> gpuNodes, String operatorNamespace) {
        return sortedEvents(
                events.stream()
                        .filter(e -> !operatorNamespace.equals(e.getMetadata().getNamespace()))
                        .filter(
                                e -> {
                                    if (e.getInvolvedObject() == null) {
                                        return false;
                                    }
                                    String kind = e.getInvolvedObject().getKind();
                                    return "Node".equals(kind)
                                            ? gpuNodes.contains(e.getInvolvedObject().getName())
                                            : CLUSTER_EVENT_KINDS.contains(kind);
                                })
                        .toList());
    }

    /** By last (else event, else creation) time, then name. */
    public static List<Event> sortedEvents(List<Event> events) {
        return events.stream()
                .sorted(
                        Comparator.comparing(Selection::eventTime)
                                .thenComparing(e -> String.valueOf(e.getMetadata().getName())))
                .toList();
    }

    private static String eventTime(Event e) {
        if (e.getLastTimestamp() != null) {
            return e.getLastTimestamp();
        }
        if (e.getEventTime() != null && e.getEventTime().getTime() != null) {
            return e.getEventTime().getTime();
        }
        return String.valueOf(e.getMetadata().getCreationTimestamp());
    }

    /** An API object as a map, without {@code managedFields} (noise to a reader). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> toMap(Object object) {
        if (object == null) {
            return null;
        }
        Map<String, Object> map = Serialization.jsonMapper().convertValue(object, Map.class);
        Object meta = map.get("metadata");
        if (meta instanceof Map<?, ?> m) {
            ((Map<String, Object>) m).remove("managedFields");
        }
        return map;
    }

    private static List<Map<String, Object>> toMaps(List<?> objects) {
        return objects == null ? List.of() : objects.stream().map(Selection::toMap).toList();
    }

    private static Map<String, String> sorted(Map<String, String> m) {
        return m == null ? Map.of() : new java.util.TreeMap<>(m);
    }

    private static Map<String, String> quantities(
            Map<String, io.fabric8.kubernetes.api.model.Quantity> q) {
        Map<String, String> out = new java.util.TreeMap<>();
        if (q != null) {
            q.forEach((k, v) -> out.put(k, v == null ? null : v.toString()));
        }
        return out;
    }
}
