package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.WatchEvent;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A kubelet reports its node's whole status every 10 s, and between changes a report differs from
 * the one before only in its {@code resourceVersion} and its conditions' heartbeat times, which the
 * controller never reads ({@link UnreadFields}, cut by {@link UnreadJson}). Such a report is not
 * parsed again: its event carries the node last read for that uid with the new {@code
 * resourceVersion} (a new object sharing the unchanged spec and status, which nothing changes).
 * That is the controller's steady load at rest, and a parsed node would be garbage 10 s later,
 * after surviving young collections.
 *
 * <p>"The same" is a SHA-256 of the event's text, with the unread fields cut and the {@code
 * resourceVersion}'s value left out (its place kept), so any other change is parsed. Only {@code
 * MODIFIED} and {@code ADDED} events of a Node whose uid and version the scan saw; a {@code
 * DELETED} one forgets the node. An {@code ADDED} one is a watch that starts with the nodes it has
 * (the mock API server's does): parsing it would give a second informer of the same client parts of
 * its own, so the next report, given again from those, would be an update to the first. The last
 * node is held weakly: one the informer no longer caches is forgotten too.
 */
final class RepeatedNodeReports {

    /** One per thread: looking the algorithm up among the providers costs more than the digest. */
    private static final ThreadLocal<MessageDigest> SHA_256 =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return MessageDigest.getInstance("SHA-256");
                        } catch (NoSuchAlgorithmException e) {
                            throw new IllegalStateException("every JDK has SHA-256", e);
                        }
                    });

    private final Map<String, Last> byUid = new ConcurrentHashMap<>();
    private final ReferenceQueue<Node> released = new ReferenceQueue<>();

    /** The node last read for a uid, and the digest of its report. */
    private static final class Last extends WeakReference<Node> {
        final String uid;
        final byte[] digest;

        Last(Node node, String uid, byte[] digest, ReferenceQueue<Node> queue) {
            super(node, queue);
            this.uid = uid;
            this.digest = digest;
        }
    }

    /**
     * The watch event {@code scanned} is: the last node again with the new version when its report
     * is the same, else {@code parse} of its text.
     */
    WatchEvent read(UnreadJson.Scanned scanned, Function<String, WatchEvent> parse) {
        forgetReleased();
        String uid = scanned.uid();
        if (!scanned.node()
                || uid == null
                || scanned.objectStart() < 0
                || scanned.versionStart() < scanned.objectStart()
                || scanned.versionEnd() > scanned.objectEnd()) {
            return parse.apply(scanned.text());
        }
        if ("DELETED".equals(scanned.type())) {
            byUid.remove(uid);
            return parse.apply(scanned.text());
        }
        if (!"MODIFIED".equals(scanned.type()) && !"ADDED".equals(scanned.type())) {
            return parse.apply(scanned.text());
        }
        byte[] digest = digest(scanned);
        Last last = byUid.get(uid);
        Node lastNode = last == null ? null : last.get();
        if (lastNode != null && Arrays.equals(last.digest, digest)) {
            Node again = withResourceVersion(lastNode, scanned.resourceVersion());
            // another watch of this client may have read a newer report meanwhile: keep that one
            byUid.replace(uid, last, new Last(again, uid, digest, released));
            return new WatchEvent(again, scanned.type());
        }
        WatchEvent event = parse.apply(scanned.text());
        if (event.getObject() instanceof Node node
                && node.getMetadata() != null
                && uid.equals(node.getMetadata().getUid())) {
            byUid.put(uid, new Last(node, uid, digest, released));
        }
        return event;
    }

    /** How many nodes it holds a report for (for tests). */
    int size() {
        forgetReleased();
        return byUid.size();
    }

    private void forgetReleased() {
        for (var r = released.poll(); r != null; r = released.poll()) {
            Last gone = (Last) r;
            byUid.remove(gone.uid, gone);
        }
    }

    /**
     * The report's digest: its object's text less the version's value, and where that value was.
     * The event's type is left out, so a node given as {@code ADDED} (a watch that starts again) is
     * the same report in a {@code MODIFIED} one.
     */
    static byte[] digest(UnreadJson.Scanned scanned) {
        MessageDigest sha = SHA_256.get();
        sha.reset(); // in case the last one stopped half way
        String text = scanned.text();
        int start = scanned.versionStart();
        sha.update(text.substring(scanned.objectStart(), start).getBytes(StandardCharsets.UTF_8));
        sha.update(new byte[] {0});
        sha.update(
                text.substring(scanned.versionEnd(), scanned.objectEnd())
                        .getBytes(StandardCharsets.UTF_8));
        sha.update(
                Integer.toString(start - scanned.objectStart())
                        .getBytes(StandardCharsets.US_ASCII));
        return sha.digest();
    }

    /**
     * Whether {@code now} is {@code before} given again ({@link #withResourceVersion}): every part
     * the same object, the version aside, so the same content. A node parsed from text never shares
     * its parts with another: the informer's store ({@link TrimmedItemStore}) tells a repeat from
     * an update by this, against the node it holds itself.
     */
    static boolean givenAgain(Node before, Node now) {
        ObjectMeta a = before.getMetadata();
        ObjectMeta b = now.getMetadata();
        return a != null
                && b != null
                && now.getSpec() == before.getSpec()
                && now.getStatus() == before.getStatus()
                && now.getAdditionalProperties() == before.getAdditionalProperties()
                && now.getApiVersion() == before.getApiVersion()
                && now.getKind() == before.getKind()
                && b.getAnnotations() == a.getAnnotations()
                && b.getCreationTimestamp() == a.getCreationTimestamp()
                && b.getDeletionGracePeriodSeconds() == a.getDeletionGracePeriodSeconds()
                && b.getDeletionTimestamp() == a.getDeletionTimestamp()
                && b.getFinalizers() == a.getFinalizers()
                && b.getGenerateName() == a.getGenerateName()
                && b.getGeneration() == a.getGeneration()
                && b.getLabels() == a.getLabels()
                && b.getManagedFields() == a.getManagedFields()
                && b.getName() == a.getName()
                && b.getNamespace() == a.getNamespace()
                && b.getOwnerReferences() == a.getOwnerReferences()
                && b.getSelfLink() == a.getSelfLink()
                && b.getUid() == a.getUid()
                && b.getAdditionalProperties() == a.getAdditionalProperties();
    }

    /**
     * {@code node} with another resourceVersion: a new Node and ObjectMeta, every other field the
     * same object ({@code RepeatedNodeReportsTest} checks that each of ObjectMeta's fields is
     * carried).
     */
    static Node withResourceVersion(Node node, String resourceVersion) {
        ObjectMeta m = node.getMetadata();
        ObjectMeta meta = new ObjectMeta();
        meta.setAnnotations(m.getAnnotations());
        meta.setCreationTimestamp(m.getCreationTimestamp());
        meta.setDeletionGracePeriodSeconds(m.getDeletionGracePeriodSeconds());
        meta.setDeletionTimestamp(m.getDeletionTimestamp());
        meta.setFinalizers(m.getFinalizers());
        meta.setGenerateName(m.getGenerateName());
        meta.setGeneration(m.getGeneration());
        meta.setLabels(m.getLabels());
        meta.setManagedFields(m.getManagedFields());
        meta.setName(m.getName());
        meta.setNamespace(m.getNamespace());
        meta.setOwnerReferences(m.getOwnerReferences());
        meta.setResourceVersion(resourceVersion);
        meta.setSelfLink(m.getSelfLink());
        meta.setUid(m.getUid());
        meta.setAdditionalProperties(m.getAdditionalProperties());
        Node again =
                new Node(
                        node.getApiVersion(),
                        node.getKind(),
                        meta,
                        node.getSpec(),
                        node.getStatus());
        again.setAdditionalProperties(node.getAdditionalProperties());
        return again;
    }
}
