package org.gpuoperator.controller.upgrade;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod on a node, as the upgrade sees it.
 *
 * @param requestsGpu a container asks for {@code nvidia.com/gpu*} or {@code nvidia.com/mig-*}
 * @param nodeBound owned by a DaemonSet, or a static (mirror) pod: never evicted, a drain skips it
 * @param controlled has a controller owner (something recreates it elsewhere)
 * @param usesEmptyDir has an emptyDir volume (its data is lost on eviction)
 * @param finished phase Succeeded or Failed
 * @param terminating already being deleted
 * @param evictionBlocked the last eviction of this pod was refused (HTTP 429: a
 *     PodDisruptionBudget), as the wiring recorded it
 */
public record NodePod(
        String namespace,
        String name,
        Map<String, String> labels,
        boolean requestsGpu,
        boolean nodeBound,
        boolean controlled,
        boolean usesEmptyDir,
        boolean finished,
        boolean terminating,
        boolean evictionBlocked) {

    public NodePod {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public String ref() {
        return namespace + "/" + name;
    }

    /** The view of a fabric8 Pod (pure). */
    public static NodePod of(Pod pod, boolean evictionBlocked) {
        var meta = pod.getMetadata();
        List<OwnerReference> owners =
                meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
        boolean daemonSet =
                owners.stream()
                        .anyMatch(
                                o ->
                                        Boolean.TRUE.equals(o.getController())
                                                && "DaemonSet".equals(o.getKind()));
        boolean mirror =
                meta.getAnnotations() != null
                        && meta.getAnnotations().containsKey("kubernetes.io/config.mirror");
        boolean controlled = owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
        var spec = pod.getSpec();
        boolean emptyDir =
                spec != null
                        && spec.getVolumes() != null
                        && spec.getVolumes().stream().anyMatch(v -> v.getEmptyDir() != null);
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return new NodePod(
                meta.getNamespace(),
                meta.getName(),
                meta.getLabels(),
                requestsGpu(pod),
                daemonSet || mirror,
                controlled,
                emptyDir,
                "Succeeded".equals(phase) || "Failed".equals(phase),
                meta.getDeletionTimestamp() != null,
                evictionBlocked);
    }

    /** Upstream's GPU pod filter: a GPU or MIG resource in a container's limits or requests. */
    public static boolean requestsGpu(Pod pod) {
        if (pod.getSpec() == null) {
            return false;
        }
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec().getContainers() != null) {
            containers.addAll(pod.getSpec().getContainers());
        }
        if (pod.getSpec().getInitContainers() != null) {
            containers.addAll(pod.getSpec().getInitContainers());
        }
        for (Container c : containers) {
            if (c.getResources() != null
                    && (gpu(c.getResources().getLimits()) || gpu(c.getResources().getRequests()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean gpu(Map<String, Quantity> resources) {
        return resources != null
                && resources.keySet().stream()
                        .anyMatch(
                                k ->
                                        k.startsWith(UpgradeKeys.GPU_RESOURCE_PREFIX)
                                                || k.startsWith(UpgradeKeys.MIG_RESOURCE_PREFIX));
    }
}
