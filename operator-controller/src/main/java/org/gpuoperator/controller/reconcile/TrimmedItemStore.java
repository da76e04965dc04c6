package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/**
 * An informer store that drops, before caching, what the controller never reads. A real Node
 * carries up to 50 {@code status.images} and its {@code managedFields}: most of its 5–15 KB, and
 * the reason upstream's operator runs out of memory on large clusters. The controller's own client
 * ({@link ControllerSerialization}) never parses those ({@link UnreadFields}); this store empties
 * them for any other client, and drops kubectl's last-applied copy. Only what no step reads goes
 * ({@code TrimmedItemStoreTest}: a trimmed node is no change to {@code NodeChanges}, and plans,
 * summarises and versions as the whole one); nodes and pods are patched by field, never replaced
 * from the cache, so nothing trimmed is written back.
 *
 * <p>The informer hands the same object to the event handlers, so they see it trimmed too: the
 * update filters compare labels, annotations, conditions and node info, all kept.
 */
final class TrimmedItemStore<T extends HasMetadata> implements ItemStore<T> {

    /** kubectl's copy of the whole object as applied; nothing here reads it. */
    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private final BasicItemStore<T> store = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final UnaryOperator<T> trim;
    private final BiPredicate<T, T> givenAgain;

    private TrimmedItemStore(UnaryOperator<T> trim, BiPredicate<T, T> givenAgain) {
        this.trim = trim;
        this.givenAgain = givenAgain;
    }

    /**
     * Nodes without images, managedFields, volume lists, their conditions' heartbeat times and
     * kubectl's last-applied copy.
     */
    static TrimmedItemStore<Node> nodes() {
        return new TrimmedItemStore<>(TrimmedItemStore::trimNode, RepeatedNodeReports::givenAgain);
    }

    /** Pods without managedFields and kubectl's last-applied copy. */
    static TrimmedItemStore<Pod> pods() {
        return new TrimmedItemStore<>(TrimmedItemStore::trimPod, (before, now) -> false);
    }

    static Node trimNode(Node node) {
        trimMeta(node.getMetadata());
        UnreadFields.emptyNode(node);
        return node;
    }

    static Pod trimPod(Pod pod) {
        trimMeta(pod.getMetadata());
        return pod;
    }

    private static void trimMeta(ObjectMeta meta) {
        if (meta == null) {
            return;
        }
        UnreadFields.empty(meta);
        Map<String, String> annotations = meta.getAnnotations();
        if (annotations != null && annotations.containsKey(LAST_APPLIED)) {
            Map<String, String> kept = new LinkedHashMap<>(annotations);
            kept.remove(LAST_APPLIED);
            meta.setAnnotations(kept);
        }
    }

    @Override
    public String getKey(T obj) {
        return store.getKey(obj);
    }

    /**
     * Caches {@code obj} trimmed and returns the object it replaces, except for a node given again
     * ({@link RepeatedNodeReports}: a kubelet's report that changed nothing read): then {@code obj}
     * itself. fabric8's informer hands an update to the handlers only when the object it gets back
     * has another {@code resourceVersion}, so a repeat stops here, its version cached: no JOSDK
     * dispatch, no update filter, no second thread. The handlers would have dropped it anyway
     * ({@code NodeChanges.matters}); this store decides by what it holds itself, so any other watch
     * of the same client is no concern.
     */
    @Override
    public T put(String key, T obj) {
        T kept = trim.apply(obj);
        T before = store.put(key, kept);
        return before != null && givenAgain.test(before, kept) ? kept : before;
    }

    @Override
    public T remove(String key) {
        return store.remove(key);
    }

    @Override
    public java.util.stream.Stream<String> keySet() {
        return store.keySet();
    }

    @Override
    public java.util.stream.Stream<T> values() {
        return store.values();
    }

    @Override
    public int size() {
        return store.size();
    }

    @Override
    public T get(String key) {
        return store.get(key);
    }
}
