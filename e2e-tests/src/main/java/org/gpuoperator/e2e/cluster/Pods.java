package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Pod;

/** Reading pod state the way the kubelet reports it. */
public final class Pods {

    private Pods() {}

    /** Whether the pod's Ready condition is True. */
    public static boolean isReady(Pod p) {
        return p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }
}
