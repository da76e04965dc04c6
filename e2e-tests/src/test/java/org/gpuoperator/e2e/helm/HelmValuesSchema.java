package org.gpuoperator.e2e.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The chart's values.schema.json, computed from the ClusterPolicy CRD (pure, no I/O but {@link
 * #fromCrdFile}). Every ClusterPolicy spec field is a top-level value with the CRD's schema,
 * closed: the CRD keeps unknown fields for upstream's policies, the values must not, so that a
 * mistyped key fails at install. {@code operator} adds the chart's own keys (the Deployment, the
 * hooks) to spec.operator's; {@code nfd} is the chart's.
 */
final class HelmValuesSchema {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private HelmValuesSchema() {}

    static ObjectNode fromCrdFile(Path crd) throws IOException {
        return generate(new YAMLMapper().readTree(crd.toFile()));
    }

    /** The schema file's text: two-space indented JSON and a final newline. */
    static String text(ObjectNode schema) throws IOException {
        return JSON.writeValueAsString(schema).replace("\r\n", "\n") + "\n";
    }

    /** spec of the ClusterPolicy CRD's served version. */
    static JsonNode specSchema(JsonNode crd) {
        for (JsonNode version : crd.path("spec").path("versions")) {
            if (version.path("served").asBoolean(true)
                    && version.path("name").asText().equals("v1")) {
                JsonNode spec =
                        version.path("schema")
                                .path("openAPIV3Schema")
                                .path("properties")
                                .path("spec");
                if (spec.isObject()) {
                    return spec;
                }
            }
        }
        throw new IllegalArgumentException(
                "CRD " + crd.path("metadata").path("name").asText() + ": no v1 spec schema");
    }

    static ObjectNode generate(JsonNode crd) {
        JsonNode spec = specSchema(crd);
        JsonNode specProps = spec.path("properties");
        ObjectNode root = F.objectNode();
        root.put("$schema", "http://json-schema.org/draft-07/schema#");
        root.put(
                "$comment",
                "Generated from deploy/crds/clusterpolicies.nvidia.com-v1.yml by e2e-tests"
                        + " HelmValuesSchema; HelmValuesSchemaTest fails when it is stale.");
        root.put("title", "gpu-operator chart values");
        root.put("type", "object");
        ObjectNode props = root.putObject("properties");
        for (Map.Entry<String, JsonNode> field : specProps.properties()) {
            props.set(field.getKey(), closed(field.getValue()));
        }
        ObjectNode operator = (ObjectNode) props.get("operator");
        ObjectNode operatorProps = (ObjectNode) operator.get("properties");
        for (Map.Entry<String, JsonNode> key : chartOperatorKeys(specProps).properties()) {
            if (operatorProps.has(key.getKey())) {
                throw new IllegalStateException(
                        "operator."
                                + key.getKey()
                                + " is both a chart key and a ClusterPolicy field");
            }
            operatorProps.set(key.getKey(), key.getValue());
        }
        operator.put(
                "description",
                "The operator's Deployment and hooks, and spec.operator of the ClusterPolicy ("
                        + String.join(", ", policyOperatorKeys(crd))
                        + ").");
        ObjectNode nfd = props.putObject("nfd");
        nfd.put(
                "description",
                "node-feature-discovery is not bundled: install it on its own; true fails.");
        nfd.put("type", "object");
        nfd.putObject("properties")
                .putObject("enabled")
                .put("type", "boolean")
                .put("description", "Must stay false (no NFD subchart).");
        nfd.put("additionalProperties", false);
        ObjectNode driverProps = (ObjectNode) props.path("driver").path("properties");
        driverProps.set("nvidiaDriverCRD", nvidiaDriverCrd());
        if (spec.has("required")) {
            root.set("required", spec.get("required").deepCopy());
        }
        root.put("additionalProperties", false);
        return root;
    }

    /**
     * Upstream's chart switch for NVIDIADriver mode (driver.nvidiaDriverCRD): it becomes
     * spec.driver.useNvidiaDriverCRD, and the default NVIDIADriver the chart renders.
     */
    private static ObjectNode nvidiaDriverCrd() {
        ObjectNode n = F.objectNode();
        n.put(
                "description",
                "Upstream's NVIDIADriver mode switch: enabled sets spec.driver.useNvidiaDriverCRD;"
                        + " with deployDefaultCR the chart renders the NVIDIADriver 'default'.");
        n.put("type", "object");
        ObjectNode p = n.putObject("properties");
        p.set("enabled", bool("Drivers come from NVIDIADriver objects (default false)."));
        p.set(
                "deployDefaultCR",
                bool("Render the NVIDIADriver 'default' when enabled (default true)."));
        ObjectNode type = string("driverType of the default NVIDIADriver (only gpu is deployed).");
        type.putArray("enum").add("gpu").add("vgpu").add("vgpu-host-manager");
        p.set("driverType", type);
        p.set(
                "nodeSelector",
                stringMap(
                        "nodeSelector of the default NVIDIADriver; empty: it is the default"
                                + " (spec.default: true) for every GPU node no other selects."));
        n.put("additionalProperties", false);
        return n;
    }

    /** spec.operator's fields: the operator.* values the ClusterPolicy gets. */
    static List<String> policyOperatorKeys(JsonNode crd) {
        return specSchema(crd)
                .path("properties")
                .path("operator")
                .path("properties")
                .properties()
                .stream()
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    /**
     * The chart's own operator.* keys, typed with the CRD's schemas where it has the same thing.
     */
    private static ObjectNode chartOperatorKeys(JsonNode specProps) {
        JsonNode driver = specProps.path("driver").path("properties");
        ObjectNode keys = F.objectNode();
        keys.set("repository", string("Registry and path of the operator's image."));
        keys.set("image", string("Name of the operator's image."));
        keys.set("version", string("Tag of the operator's image; empty: the chart's appVersion."));
        keys.set("imagePullPolicy", closed(driver.path("imagePullPolicy")));
        keys.set("imagePullSecrets", closed(driver.path("imagePullSecrets")));
        keys.set("priorityClassName", string("Priority class of the operator's pod."));
        keys.set("resources", closed(driver.path("resources")));
        keys.set(
                "tolerations",
                closed(specProps.path("daemonsets").path("properties").path("tolerations")));
        keys.set("nodeSelector", stringMap("Node selector of the operator's pod."));
        ObjectNode affinity = F.objectNode();
        affinity.put("description", "Affinity of the operator's pod (a Kubernetes Affinity).");
        affinity.put("type", "object");
        keys.set("affinity", affinity);
        keys.set(
                "upgradeCRD",
                bool("helm upgrade: a pre-upgrade hook Job applies the chart's CRDs first."));
        keys.set(
                "cleanupClusterPolicy",
                bool(
                        "helm uninstall: a pre-delete hook Job deletes the ClusterPolicies and"
                                + " waits until the operator has restored the nodes."));
        keys.set(
                "cleanupCRD",
                bool("With cleanupClusterPolicy: the hook then deletes the CRDs as well."));
        keys.set("kubectlImage", string("The image the hook Jobs run kubectl from."));
        ObjectNode rule = F.objectNode();
        rule.put(
                "description",
                "The alert rules as a Prometheus Operator PrometheusRule (needs its CRDs).");
        rule.put("type", "object");
        rule.put("additionalProperties", false);
        ObjectNode ruleKeys = rule.putObject("properties");
        ruleKeys.set("enabled", bool("Create the PrometheusRule."));
        ruleKeys.set(
                "additionalLabels",
                stringMap(
                        "Labels added to the PrometheusRule, e.g. the one your Prometheus selects"
                                + " rules by."));
        keys.set("prometheusRule", rule);
        return keys;
    }

    /** An object of string values (labels, a node selector). */
    private static ObjectNode stringMap(String description) {
        ObjectNode map = F.objectNode();
        map.put("description", description);
        map.put("type", "object");
        map.putObject("additionalProperties").put("type", "string");
        return map;
    }

    /**
     * A copy of a CRD schema for values: objects with fields admit no other key; Kubernetes'
     * extensions (x-kubernetes-*) are left out (int-or-string keeps its anyOf).
     */
    static JsonNode closed(JsonNode schema) {
        if (schema.isMissingNode()) {
            throw new IllegalArgumentException("the CRD lacks a schema the chart uses");
        }
        if (schema.isArray()) {
            ArrayNode copy = F.arrayNode();
            schema.forEach(item -> copy.add(closed(item)));
            return copy;
        }
        if (!schema.isObject()) {
            return schema.deepCopy();
        }
        ObjectNode copy = F.objectNode();
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            String key = e.getKey();
            if (key.startsWith("x-kubernetes-")) {
                continue;
            }
            if (key.equals("properties")) {
                ObjectNode props = copy.putObject("properties");
                e.getValue().properties().forEach(p -> props.set(p.getKey(), closed(p.getValue())));
            } else if (key.equals("enum")
                    || key.equals("required")
                    || key.equals("description")
                    || key.equals("pattern")) {
                copy.set(key, e.getValue().deepCopy());
            } else {
                copy.set(key, closed(e.getValue()));
            }
        }
        if (schema.has("properties") && !schema.has("additionalProperties")) {
            copy.put("additionalProperties", false);
        }
        return copy;
    }

    private static ObjectNode string(String description) {
        return F.objectNode().put("description", description).put("type", "string");
    }

    private static ObjectNode bool(String description) {
        return F.objectNode().put("description", description).put("type", "boolean");
    }
}
