package org.gpuoperator.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The openAPIV3Schema of a generated CRD as a JSON schema (draft 7), validated by the networknt
 * library, with the Kubernetes extensions mapped to what the API server does:
 *
 * <ul>
 *   <li>apiVersion, kind and metadata, which the API server checks itself, are added at the root;
 *   <li>an object without {@code x-kubernetes-preserve-unknown-fields} would have unknown fields
 *       pruned, so here they are rejected ({@code additionalProperties: false});
 *   <li>{@code x-kubernetes-int-or-string} becomes {@code anyOf: [integer, string]};
 *   <li>{@code nullable: true} adds {@code null} to the type;
 *   <li>other {@code x-kubernetes-*} keywords (CEL rules, list types) are dropped: only the API
 *       server can run them.
 * </ul>
 */
public final class CrdJsonSchema {
    public static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final JsonSchema schema;

    private CrdJsonSchema(JsonSchema schema) {
        this.schema = schema;
    }

    /** The schema of the first version of the CRD in {@code crdFile}. */
    public static CrdJsonSchema load(Path crdFile) {
        try {
            JsonNode crd = YAML.readTree(crdFile.toFile());
            JsonNode openApi =
                    crd.path("spec")
                            .path("versions")
                            .path(0)
                            .path("schema")
                            .path("openAPIV3Schema");
            if (openApi.isMissingNode()) {
                throw new IllegalArgumentException(
                        crdFile + ": no spec.versions[0].schema.openAPIV3Schema");
            }
            ObjectNode converted = convert(openApi.deepCopy());
            // the API server itself checks these; the generated schema leaves them out
            ObjectNode root = (ObjectNode) converted.get("properties");
            root.putObject("apiVersion").put("type", "string");
            root.putObject("kind").put("type", "string");
            root.putObject("metadata").put("type", "object");
            converted.put("$schema", "http://json-schema.org/draft-07/schema#");
            return new CrdJsonSchema(
                    JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(converted));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Problems of a resource, each as {@code <json path>: <message>}, e.g. {@code
     * spec.mig.strategy: ...}.
     */
    public List<String> validate(JsonNode resource) {
        return schema.validate(resource).stream().map(CrdJsonSchema::describe).sorted().toList();
    }

    private static String describe(ValidationMessage message) {
        String path = message.getInstanceLocation().toString().replaceFirst("^\\$\\.?", "");
        if ("required".equals(message.getType()) && message.getProperty() != null) {
            path = path.isEmpty() ? message.getProperty() : path + "." + message.getProperty();
        }
        // the library starts its messages with the instance location; keep only what follows
        return path + ": " + message.getMessage().replaceFirst("^\\S+: ", "");
    }

    private static ObjectNode convert(ObjectNode node) {
        if (node.path("x-kubernetes-int-or-string").asBoolean(false) && !node.has("anyOf")) {
            ArrayNode anyOf = node.putArray("anyOf");
            anyOf.addObject().put("type", "integer");
            anyOf.addObject().put("type", "string");
        }
        if (node.path("nullable").asBoolean(false) && node.has("type")) {
            ArrayNode types =
                    JsonNodeFactory.instance.arrayNode().add(node.get("type").asText()).add("null");
            node.set("type", types);
        }
        boolean preserveUnknown =
                node.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        if ("object".equals(node.path("type").asText())
                && node.has("properties")
                && !preserveUnknown
                && !node.has("additionalProperties")) {
            node.put("additionalProperties", false);
        }
        node.remove("nullable");
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            if (names.next().startsWith("x-kubernetes-")) {
                names.remove();
            }
        }
        if (node.get("properties") instanceof ObjectNode properties) {
            for (Map.Entry<String, JsonNode> property : properties.properties()) {
                if (property.getValue() instanceof ObjectNode child) {
                    convert(child);
                }
            }
        }
        for (String key : List.of("items", "additionalProperties")) {
            if (node.get(key) instanceof ObjectNode child) {
                convert(child);
            }
        }
        if (node.get("anyOf") instanceof ArrayNode alternatives) {
            alternatives.forEach(
                    alternative -> {
                        if (alternative instanceof ObjectNode child) {
                            convert(child);
                        }
                    });
        }
        return node;
    }
}
