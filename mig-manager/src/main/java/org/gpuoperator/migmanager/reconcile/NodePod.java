package org.gpuoperator.migmanager.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * What the MIG manager reads of a pod on its node, taken from the pod as a generic resource.
 *
 * @param name {@code namespace/name}
 * @param app its {@code app} label, or null
 * @param phase {@code status.phase}, or null
 * @param holdsGpu whether a container or init container names an {@code nvidia.com/} resource in
 *     its limits or requests
 */
record NodePod(String name, String app, String phase, boolean holdsGpu) {

    static NodePod of(GenericKubernetesResource pod) {
        ObjectMeta meta = pod.getMetadata();
        return new NodePod(
                meta.getNamespace() + "/" + meta.getName(),
                meta.getLabels() == null ? null : meta.getLabels().get("app"),
                pod.get("status", "phase") instanceof String phase ? phase : null,
                namesNvidiaResource(pod.get("spec", "containers"))
                        || namesNvidiaResource(pod.get("spec", "initContainers")));
    }

    /** Not yet ended: a pod that succeeded or failed holds nothing any more. */
    boolean running() {
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    private static boolean namesNvidiaResource(Object containers) {
        if (!(containers instanceof List<?> list)) {
            return false;
        }
        for (Object container : list) {
            if (container instanceof Map<?, ?> c
                    && c.get("resources") instanceof Map<?, ?> resources
                    && (namesNvidia(resources.get("limits"))
                            || namesNvidia(resources.get("requests")))) {
                return true;
            }
        }
        return false;
    }

    private static boolean namesNvidia(Object quantities) {
        return quantities instanceof Map<?, ?> m
                && m.keySet().stream()
                        .anyMatch(k -> k instanceof String s && s.startsWith("nvidia.com/"));
    }
}
