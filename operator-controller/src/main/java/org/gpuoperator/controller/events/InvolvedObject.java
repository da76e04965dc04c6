package org.gpuoperator.controller.events;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The object an Event is about ({@code involvedObject}); {@code kubectl describe} lists the Events
 * whose kind, name, namespace and uid match the object's.
 *
 * @param namespace null for a cluster-scoped object (a Node, the ClusterPolicy)
 */
public record InvolvedObject(
        String apiVersion, String kind, String namespace, String name, String uid) {

    public static InvolvedObject of(HasMetadata object) {
        return new InvolvedObject(
                object.getApiVersion(),
                object.getKind(),
                object.getMetadata().getNamespace(),
                object.getMetadata().getName(),
                object.getMetadata().getUid());
    }

    /**
     * The key that tells objects apart (client-go's spam key without the source, which is ours
     * alone).
     */
    String key() {
        return String.join("\u0000", apiVersion, kind, nullToEmpty(namespace), name, uid);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
