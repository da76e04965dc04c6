package org.gpuoperator.gfd.publish;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Publishes the labels as NFD's {@code NodeFeature} object ({@code nfd.k8s-sigs.io/v1alpha1},
 * namespaced) named {@code nvidia-features-for-<node>}, labelled {@code
 * nfd.node.kubernetes.io/node-name=<node>}; NFD's master turns {@code spec.labels} into node labels
 * and removes those that disappear. Created when missing, updated only when it differs. Needs RBAC
 * {@code get, create, update} on {@code nodefeatures.nfd.k8s-sigs.io} in its namespace.
 */
public final class NodeFeaturePublisher implements LabelPublisher {

    public static final String GROUP = "nfd.k8s-sigs.io";
    public static final String API_VERSION = GROUP + "/v1alpha1";
    public static final String KIND = "NodeFeature";
    public static final String NODE_NAME_LABEL = "nfd.node.kubernetes.io/node-name";
    public static final String NAME_PREFIX = "nvidia-features-for-";

    /**
     * The resource, named in full: by (apiVersion, kind) fabric8 would look the kind up among its
     * model classes (loading and instantiating each one its jars list) and then ask the API server
     * for the group's resources.
     */
    public static final ResourceDefinitionContext NODE_FEATURES =
            new ResourceDefinitionContext.Builder()
                    .withGroup(GROUP)
                    .withVersion("v1alpha1")
                    .withKind(KIND)
                    .withPlural("nodefeatures")
                    .withNamespaced(true)
                    .build();

    private final KubernetesClient client;
    private final String namespace;
    private final String nodeName;
    private final List<OwnerReference> ownerReferences;

    public NodeFeaturePublisher(
            KubernetesClient client,
            String namespace,
            String nodeName,
            List<OwnerReference> ownerReferences) {
        this.client = client;
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
        this.ownerReferences = List.copyOf(ownerReferences);
    }

    /**
     * Whether the API server serves NFD's {@code nodefeatures} in {@code v1alpha1} (the NodeFeature
     * CRD is installed).
     */
    public static boolean apiServed(KubernetesClient client) {
        APIResourceList resources = client.getApiResources(API_VERSION);
        return resources != null
                && resources.getResources() != null
                && resources.getResources().stream()
                        .anyMatch(r -> "nodefeatures".equals(r.getName()));
    }

    /**
     * The owner references upstream sets so the object is garbage-collected with the DaemonSet: the
     * DaemonSet that owns {@code podName} (as controller) and the pod. Empty when the pod is
     * unknown, not a DaemonSet's, or cannot be read (RBAC {@code get} on {@code pods} in the
     * namespace is optional).
     */
    public static List<OwnerReference> ownerReferencesOf(
            KubernetesClient client, String namespace, String podName) {
        if (podName == null || podName.isBlank()) {
            return List.of();
        }
        Pod pod;
        try {
            pod = client.pods().inNamespace(namespace).withName(podName).get();
        } catch (KubernetesClientException e) {
            return List
                    .of(); // e.g. no RBAC to read pods: publish without owners rather than not at
            // all
        }
        if (pod == null || pod.getMetadata().getOwnerReferences() == null) {
            return List.of();
        }
        return pod.getMetadata().getOwnerReferences().stream()
                .filter(o -> "DaemonSet".equals(o.getKind()))
                .findFirst()
                .map(
                        ds ->
                                List.of(
                                        new OwnerReferenceBuilder()
                                                .withApiVersion(ds.getApiVersion())
                                                .withKind(ds.getKind())
                                                .withName(ds.getName())
                                                .withUid(ds.getUid())
                                                .withController(true)
                                                .build(),
                                        new OwnerReferenceBuilder()
                                                .withApiVersion("v1")
                                                .withKind("Pod")
                                                .withName(pod.getMetadata().getName())
                                                .withUid(pod.getMetadata().getUid())
                                                .build()))
                .orElse(List.of());
    }

    public String objectName() {
        return NAME_PREFIX + nodeName;
    }

    @Override
    public Outcome publish(SortedMap<String, String> labels) {
        Resource<GenericKubernetesResource> ref =
                client.genericKubernetesResources(NODE_FEATURES)
                        .inNamespace(namespace)
                        .withName(objectName());
        try {
            GenericKubernetesResource existing = ref.get();
            if (existing == null) {
                client.genericKubernetesResources(NODE_FEATURES)
                        .inNamespace(namespace)
                        .resource(desired(labels))
                        .create();
                return new Outcome(true, labels.size(), 0);
            }
            Map<String, String> before = specLabels(existing);
            boolean same =
                    before.equals(labels)
                            && Objects.equals(
                                    existing.getMetadata().getLabels(),
                                    Map.of(NODE_NAME_LABEL, nodeName))
                            && ownerReferencesEqual(existing.getMetadata().getOwnerReferences())
                            && existing.getAdditionalProperties().get("spec")
                                    instanceof Map<?, ?> spec
                            && spec.get("features") != null;
            if (same) {
                return Outcome.UNCHANGED;
            }
            GenericKubernetesResource updated = desired(labels);
            updated.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
            client.genericKubernetesResources(NODE_FEATURES)
                    .inNamespace(namespace)
                    .resource(updated)
                    .update();
            int removed =
                    (int) before.keySet().stream().filter(k -> !labels.containsKey(k)).count();
            int set =
                    (int)
                            labels.entrySet().stream()
                                    .filter(
                                            e ->
                                                    !Objects.equals(
                                                            before.get(e.getKey()), e.getValue()))
                                    .count();
            return new Outcome(true, set, removed);
        } catch (KubernetesClientException e) {
            throw new PublishException(
                    "cannot write NodeFeature "
                            + namespace
                            + "/"
                            + objectName()
                            + ": "
                            + (e.getStatus() != null && e.getStatus().getMessage() != null
                                    ? e.getStatus().getMessage()
                                    : e.getMessage()),
                    e);
        }
    }

    private boolean ownerReferencesEqual(List<OwnerReference> existing) {
        List<OwnerReference> have = existing == null ? List.of() : existing;
        return have.equals(ownerReferences);
    }

    /** The whole object as this agent wants it. */
    GenericKubernetesResource desired(SortedMap<String, String> labels) {
        Map<String, Object> features = new LinkedHashMap<>();
        features.put("flags", Map.of());
        features.put("attributes", Map.of());
        features.put("instances", Map.of());
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("features", features);
        spec.put("labels", new TreeMap<>(labels));
        return new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION)
                .withKind(KIND)
                .withNewMetadata()
                .withName(objectName())
                .withNamespace(namespace)
                .withLabels(Map.of(NODE_NAME_LABEL, nodeName))
                .withOwnerReferences(ownerReferences)
                .endMetadata()
                .withAdditionalProperties(Map.of("spec", spec))
                .build();
    }

    /** {@code spec.labels} of an existing object. */
    @SuppressWarnings("unchecked")
    static Map<String, String> specLabels(GenericKubernetesResource r) {
        if (r.getAdditionalProperties().get("spec") instanceof Map<?, ?> spec
                && spec.get("labels") instanceof Map<?, ?> l) {
            Map<String, String> out = new TreeMap<>();
            ((Map<String, Object>) l)
                    .forEach((k, v) -> out.put(k, v == null ? "" : String.valueOf(v)));
            return out;
        }
        return Map.of();
    }

    @Override
    public String target() {
        return "nodefeature/" + namespace + "/" + objectName();
    }
}
