package org.gpuoperator.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Kind, namespace (null when cluster-scoped) and name: enough to read or delete an object without
 * building it.
 */
public record ObjectRef(Class<? extends HasMetadata> kind, String namespace, String name) {

    public static ObjectRef of(HasMetadata object) {
        return new ObjectRef(
                object.getClass(),
                object.getMetadata().getNamespace(),
                object.getMetadata().getName());
    }

    /** e.g. {@code DaemonSet}, as the API and the write metrics spell it. */
    public String kindName() {
        return HasMetadata.getKind(kind);
    }

    @Override
    public String toString() {
        return kindName() + "/" + (namespace == null ? "" : namespace + "/") + name;
    }
}
