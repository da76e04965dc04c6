package org.gpuoperator.controller.apply;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.operand.Hashing;

/**
 * Applies desired objects with hash-based change detection: the hash of the desired object is stored in
 * {@code nvidia.com/last-applied-hash}; an object whose stored hash matches gets no write at all.
 */
public final class ResourceApplier {

    public static final String HASH_ANNOTATION = "nvidia.com/last-applied-hash";

    /** How long a hash we applied is trusted without reading the object back (objects without an informer). */
    static final long VERIFY_AFTER_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(5);

    private final KubernetesClient client;
    private final WriteCounter writes;
    private final LiveCache cache;
    private final Map<String, Applied> applied = new java.util.concurrent.ConcurrentHashMap<>();

    private record Applied(String hash, long atNanos) {}

    private static final String DELETED = "<deleted>";

    public ResourceApplier(KubernetesClient client, WriteCounter writes, LiveCache cache) {
        this.client = client;
        this.writes = writes;
        this.cache = cache;
    }

    /**
     * An informer cache for the kinds that have one (the DaemonSets): reads come from it and our own writes are
     * put back into it, so a reconcile never GETs them nor acts on a stale copy.
     */
    public interface LiveCache {
        /** @return null when this kind has no informer; else the cached object, or empty when absent */
        java.util.Optional<HasMetadata> get(HasMetadata desired);

        void written(HasMetadata result, HasMetadata previous);

        LiveCache NONE = new LiveCache() {
            @Override
            public java.util.Optional<HasMetadata> get(HasMetadata desired) {
                return null;
            }

            @Override
            public void written(HasMetadata result, HasMetadata previous) {}
        };
    }

    /** Counts the API writes this controller sends (for metrics and the benchmark). */
    public interface WriteCounter {
        void write(String verb, String kind);
    }

    /** Sets the controller owner reference; Kubernetes garbage-collects the object with its owner. */
    public static <T extends HasMetadata> T ownedBy(T object, HasMetadata owner) {
        OwnerReference ref = new OwnerReferenceBuilder()
                .withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true)
                .build();
        object.getMetadata().setOwnerReferences(List.of(ref));
        return object;
    }

    /** Creates or updates {@code desired} unless the live object already carries its hash. @return true if written */
    public boolean apply(HasMetadata desired) {
        desired.getMetadata().setAnnotations(withoutHash(desired.getMetadata().getAnnotations()));
        String hash = Hashing.of(desired);
        Map<String, String> annotations = new HashMap<>(desired.getMetadata().getAnnotations());
        annotations.put(HASH_ANNOTATION, hash);
        desired.getMetadata().setAnnotations(annotations);

        String key = key(desired);
        Applied last = applied.get(key);
        java.util.Optional<HasMetadata> cached = cache.get(desired);
        if (cached == null && last != null && last.hash().equals(hash)
                && System.nanoTime() - last.atNanos() < VERIFY_AFTER_NANOS) {
            return false; // applied this exact object recently; re-read it only now and then
        }
        HasMetadata live = cached != null ? cached.orElse(null) : client.resource(desired).get();
        if (live == null) {
            HasMetadata created = client.resource(desired).create();
            writes.write("create", desired.getKind());
            remember(key, hash, created, null);
            return true;
        }
        Map<String, String> liveAnnotations = live.getMetadata().getAnnotations();
        if (liveAnnotations != null && hash.equals(liveAnnotations.get(HASH_ANNOTATION))) {
            applied.put(key, new Applied(hash, System.nanoTime()));
            return false;
        }
        desired.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
        HasMetadata updated = client.resource(desired).update();
        writes.write("update", desired.getKind());
        remember(key, hash, updated, live);
        return true;
    }

    private void remember(String key, String hash, HasMetadata result, HasMetadata previous) {
        applied.put(key, new Applied(hash, System.nanoTime()));
        cache.written(result, previous);
    }

    private static String key(HasMetadata o) {
        return o.getKind() + "/" + o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    /** Deletes the object if it exists. @return true if a delete was sent */
    public boolean deleteIfPresent(HasMetadata target) {
        String key = key(target);
        Applied last = applied.get(key);
        java.util.Optional<HasMetadata> cached = cache.get(target);
        if (cached == null && last != null && last.hash().equals(DELETED)
                && System.nanoTime() - last.atNanos() < VERIFY_AFTER_NANOS) {
            return false;
        }
        HasMetadata live = cached != null ? cached.orElse(null) : client.resource(target).get();
        applied.put(key, new Applied(DELETED, System.nanoTime()));
        if (live == null) {
            return false;
        }
        client.resource(target).delete();
        writes.write("delete", target.getKind());
        return true;
    }

    private static Map<String, String> withoutHash(Map<String, String> annotations) {
        Map<String, String> copy = annotations == null ? new HashMap<>() : new HashMap<>(annotations);
        copy.remove(HASH_ANNOTATION);
        return copy;
    }
}
