package org.gpuoperator.controller.apply;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.gpuoperator.controller.operand.Hashing;

/**
 * Makes one object as desired: {@link #reconcile} takes the desired object, or none to delete it.
 * Change detection by hash: the desired object's hash is stored in {@code
 * nvidia.com/last-applied-hash}, and an object whose stored hash matches gets no write at all.
 */
public final class ResourceApplier {

    public static final String HASH_ANNOTATION = "nvidia.com/last-applied-hash";

    /** How long a result is trusted without reading the object back (kinds without an informer). */
    static final Duration VERIFY_AFTER = Duration.ofMinutes(5);

    /** What {@link #reconcile} did. */
    public enum Result {
        CREATED,
        UPDATED,
        DELETED,
        UNCHANGED
    }

    /** The API calls the applier makes; {@link #of} is the real one, tests use a map. */
    public interface Api {
        /**
         * @return the live object, or null when there is none
         */
        HasMetadata get(ObjectRef ref);

        HasMetadata create(HasMetadata desired);

        /**
         * Replaces the object; {@code desired} carries the live resourceVersion, so a concurrent
         * change fails.
         */
        HasMetadata update(HasMetadata desired);

        void delete(ObjectRef ref);

        /**
         * Deletes the object with orphan propagation: its dependents (a DaemonSet's pods) stay,
         * without the owner reference.
         */
        void deleteKeepingDependents(ObjectRef ref);

        static Api of(KubernetesClient client) {
            return new Api() {
                @Override
                public HasMetadata get(ObjectRef ref) {
                    return named(ref).get();
                }

                @Override
                public HasMetadata create(HasMetadata desired) {
                    return client.resource(desired).create();
                }

                @Override
                public HasMetadata update(HasMetadata desired) {
                    return client.resource(desired).update();
                }

                @Override
                public void delete(ObjectRef ref) {
                    named(ref).delete();
                }

                @Override
                public void deleteKeepingDependents(ObjectRef ref) {
                    named(ref).withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
                }

                private Resource<? extends HasMetadata> named(ObjectRef ref) {
                    var kind = client.resources(ref.kind());
                    return ref.namespace() == null
                            ? kind.withName(ref.name())
                            : kind.inNamespace(ref.namespace()).withName(ref.name());
                }
            };
        }
    }

    /**
     * An informer cache for the kinds that have one (the DaemonSets): reads come from it and our
     * own writes are put back into it, so a reconcile never GETs them nor acts on a stale copy.
     */
    public interface LiveCache {
        /**
         * @return empty when this kind has no informer; else the cached object, or an empty inner
         *     value
         */
        Optional<Optional<HasMetadata>> get(ObjectRef ref);

        void written(HasMetadata result, HasMetadata previous);

        LiveCache NONE =
                new LiveCache() {
                    @Override
                    public Optional<Optional<HasMetadata>> get(ObjectRef ref) {
                        return Optional.empty();
                    }

                    @Override
                    public void written(HasMetadata result, HasMetadata previous) {}
                };
    }

    /** Counts the API writes this controller sends (for metrics and the benchmark). */
    public interface WriteCounter {
        void write(String verb, String kind);
    }

    private static final String DELETED = "<deleted>";

    private record Applied(String hash, long atMillis) {}

    private final Api api;
    private final WriteCounter writes;
    private final LiveCache cache;
    private final Clock clock;
    private final Map<ObjectRef, Applied> applied = new ConcurrentHashMap<>();

    public ResourceApplier(Api api, WriteCounter writes, LiveCache cache, Clock clock) {
        this.api = api;
        this.writes = writes;
        this.cache = cache;
        this.clock = clock;
    }

    /**
     * Sets the controller owner reference; Kubernetes garbage-collects the object with its owner.
     */
    public static <T extends HasMetadata> T ownedBy(T object, HasMetadata owner) {
        OwnerReference ref =
                new OwnerReferenceBuilder()
                        .withApiVersion(owner.getApiVersion())
                        .withKind(owner.getKind())
                        .withName(owner.getMetadata().getName())
                        .withUid(owner.getMetadata().getUid())
                        .withController(true)
                        .withBlockOwnerDeletion(true)
                        .build();
        object.getMetadata().setOwnerReferences(List.of(ref));
        return object;
    }

    /**
     * Creates or updates the object to {@code desired}, or deletes it when {@code desired} is
     * empty.
     *
     * @param ref kind, namespace and name of the object (those of {@code desired} when there is
     *     one)
     */
    public Result reconcile(ObjectRef ref, Optional<? extends HasMetadata> desired) {
        String hash = desired.map(ResourceApplier::stampHash).orElse(DELETED);
        Optional<Optional<HasMetadata>> cached = cache.get(ref);
        Applied last = applied.get(ref);
        if (cached.isEmpty()
                && last != null
                && last.hash().equals(hash)
                && clock.millis() - last.atMillis() < VERIFY_AFTER.toMillis()) {
            return Result
                    .UNCHANGED; // did exactly this recently; read the object back only now and then
        }
        HasMetadata live = cached.isPresent() ? cached.get().orElse(null) : api.get(ref);
        if (desired.isEmpty()) {
            return delete(ref, live, api::delete);
        }
        HasMetadata object = desired.get();
        if (live == null) {
            HasMetadata created = api.create(object);
            writes.write("create", object.getKind());
            remember(ref, hash);
            cache.written(created, null);
            return Result.CREATED;
        }
        Map<String, String> liveAnnotations = live.getMetadata().getAnnotations();
        if (liveAnnotations != null && hash.equals(liveAnnotations.get(HASH_ANNOTATION))) {
            remember(ref, hash);
            return Result.UNCHANGED;
        }
        object.getMetadata().setResourceVersion(live.getMetadata().getResourceVersion());
        HasMetadata updated = api.update(object);
        writes.write("update", object.getKind());
        remember(ref, hash);
        cache.written(updated, live);
        return Result.UPDATED;
    }

    /**
     * Deletes the object with orphan propagation ({@link Api#deleteKeepingDependents}); nothing
     * when it is gone already.
     */
    public Result deleteKeepingDependents(ObjectRef ref) {
        Optional<Optional<HasMetadata>> cached = cache.get(ref);
        return delete(
                ref,
                cached.isPresent() ? cached.get().orElse(null) : api.get(ref),
                api::deleteKeepingDependents);
    }

    /**
     * Deletes {@code live} through {@code call}; nothing when it is gone already or being deleted
     * (a deletion timestamp: the API server's garbage collector still orphans or deletes its
     * dependents, or a finalizer holds it), where a second DELETE would change nothing.
     */
    private Result delete(ObjectRef ref, HasMetadata live, Consumer<ObjectRef> call) {
        remember(ref, DELETED);
        if (live == null || live.getMetadata().getDeletionTimestamp() != null) {
            return Result.UNCHANGED;
        }
        call.accept(ref);
        writes.write("delete", ref.kindName());
        return Result.DELETED;
    }

    /** Creates or updates {@code desired}. */
    public Result apply(HasMetadata desired) {
        return reconcile(ObjectRef.of(desired), Optional.of(desired));
    }

    /** Puts the hash of the object (without any earlier hash) into its annotations; returns it. */
    private static String stampHash(HasMetadata desired) {
        Map<String, String> annotations =
                desired.getMetadata().getAnnotations() == null
                        ? new HashMap<>()
                        : new HashMap<>(desired.getMetadata().getAnnotations());
        annotations.remove(HASH_ANNOTATION);
        desired.getMetadata().setAnnotations(annotations);
        String hash = Hashing.of(desired);
        Map<String, String> withHash = new HashMap<>(annotations);
        withHash.put(HASH_ANNOTATION, hash);
        desired.getMetadata().setAnnotations(withHash);
        return hash;
    }

    private void remember(ObjectRef ref, String hash) {
        applied.put(ref, new Applied(hash, clock.millis()));
    }
}
