package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fabric8 CRUD mock with an index by (resource plural, name). The stock dispatcher scans every
 * stored object on each request, so at 5,000 nodes the API server itself costs O(objects) per
 * request and any convergence measured through it is quadratic whatever the controller does;
 * kube-apiserver reads one key from etcd. With the index a by-name read, create, patch or status
 * patch costs O(1); lists and deletes still scan. Same answers as the stock dispatcher (checked by
 * {@code IndexedCrudDispatcherTest}), plus the one subresource the upgrade benchmark needs: the
 * stock mock has no {@code pods/eviction} (it takes the POST for the creation of a pod named like
 * the evicted one and answers 409, or fails on a missing pod); here an eviction deletes the pod and
 * answers 201, or 404 when there is no such pod. PodDisruptionBudgets are not honoured. Lists
 * honour {@code limit} and {@code continue} as kube-apiserver does (the stock mock sends every item
 * at once): a page of at most {@code limit} items and a {@code metadata.continue} token while more
 * remain. Used by the benchmarks only.
 */
public final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

    private static final String PLURAL = "plural";
    private static final String NAME = "name";

    /** {@code POST /api/v1/namespaces/<ns>/pods/<name>/eviction}: group 1 is the pod's path. */
    private static final Pattern EVICTION =
            Pattern.compile("(/api/v1/namespaces/[^/]+/pods/[^/?]+)/eviction(\\?.*)?");

    private final Map<String, Set<AttributeSet>> byName = new ConcurrentHashMap<>();

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
        Matcher eviction = EVICTION.matcher(request.getPath());
        if (!eviction.matches()) {
            return super.handleCreate(request);
        }
        // as kube-apiserver without a PodDisruptionBudget in the way: the pod is deleted
        MockResponse deleted = handleDelete(eviction.group(1));
        if (deleted.code() >= 300) {
            return deleted;
        }
        return new MockResponse()
                .setResponseCode(201)
                .setBody(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Status\",\"status\":\"Success\","
                                + "\"code\":201}");
    }

    @Override
    public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
        String key = key(query);
        if (key == null) {
            return super.findResource(query);
        }
        for (AttributeSet candidate : byName.getOrDefault(key, Set.of())) {
            String value = map.get(candidate);
            if (value != null && candidate.matches(query)) {
                return Map.entry(candidate, value);
            }
        }
        return null;
    }

    /** A list's {@code limit} or {@code continue} query parameter: group 1 is its value. */
    private static final Pattern LIMIT = Pattern.compile("[?&]limit=(\\d+)");

    private static final Pattern CONTINUE = Pattern.compile("[?&]continue=([^&]*)");
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    @Override
    public MockResponse handleGet(String path) {
        AttributeSet query = getAttributeExtractor().fromPath(path);
        if (key(query) == null) {
            Matcher limit = LIMIT.matcher(path);
            return limit.find()
                    ? page(path, Integer.parseInt(limit.group(1)))
                    : super.handleGet(path);
        }
        Map.Entry<AttributeSet, String> found = findResource(query);
        return found == null
                ? new MockResponse().setResponseCode(404)
                : new MockResponse().setResponseCode(200).setBody(found.getValue());
    }

    /**
     * One page of a list: the items from the {@code continue} token's offset (0 without one), at
     * most {@code limit} of them (0: all), and the next offset as {@code metadata.continue} while
     * more remain.
     */
    private MockResponse page(String path, int limit) {
        Matcher token = CONTINUE.matcher(path);
        int from = token.find() && !token.group(1).isEmpty() ? Integer.parseInt(token.group(1)) : 0;
        String whole =
                path.replaceAll("([?&])(limit|continue)=[^&]*&?", "$1").replaceAll("[?&]$", "");
        MockResponse all = super.handleGet(whole);
        if (all.code() != 200 || limit == 0) {
            return all;
        }
        try {
            var list =
                    (com.fasterxml.jackson.databind.node.ObjectNode)
                            JSON.readTree(all.getBody().getBytes());
            var items = (com.fasterxml.jackson.databind.node.ArrayNode) list.get("items");
            var page = JSON.createArrayNode();
            for (int i = from; i < Math.min(items.size(), from + limit); i++) {
                page.add(items.get(i));
            }
            list.set("items", page);
            var metadata = list.withObject("metadata");
            if (from + limit < items.size()) {
                metadata.put("continue", Integer.toString(from + limit));
            } else {
                metadata.remove("continue");
            }
            return new MockResponse().setResponseCode(200).setBody(JSON.writeValueAsBytes(list));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void processEvent(
            String path,
            AttributeSet pathAttributes,
            AttributeSet oldAttributes,
            GenericKubernetesResource resource,
            String newState) {
        super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
        if (oldAttributes != null) {
            String key = key(oldAttributes);
            if (key != null) {
                byName.computeIfPresent(
                        key,
                        (k, set) -> {
                            set.remove(oldAttributes);
                            return set.isEmpty() ? null : set;
                        });
            }
        }
        if (newState != null) {
            // the key the stock dispatcher just stored, computed the same way
            KubernetesAttributesExtractor extractor =
                    (KubernetesAttributesExtractor) getAttributeExtractor();
            AttributeSet stored =
                    resource != null
                            ? extractor.extract(resource)
                            : extractor.fromResource(newState);
            if (!stored.containsKey(PLURAL)) {
                stored = AttributeSet.merge(pathAttributes, stored);
            }
            String key = key(stored);
            if (key != null) {
                byName.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(stored);
            }
        }
    }

    @Override
    public void reset() {
        super.reset();
        byName.clear();
    }

    /**
     * plural + name when both are plain "equals" attributes; otherwise null (the query goes to the
     * scan).
     */
    private static String key(AttributeSet attributes) {
        Attribute plural = attributes.getAttribute(PLURAL);
        Attribute name = attributes.getAttribute(NAME);
        if (plural == null
                || name == null
                || plural.getType() != AttributeType.WITH
                || name.getType() != AttributeType.WITH) {
            return null;
        }
        return plural.getValues() + "/" + name.getValues();
    }
}
