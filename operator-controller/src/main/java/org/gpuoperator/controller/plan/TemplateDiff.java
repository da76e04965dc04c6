package org.gpuoperator.controller.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.gpuoperator.controller.operand.PodContract;

/**
 * The paths where two pod templates differ (what makes the pods restart), e.g. {@code
 * spec.containers[driver-agent].env[DRIVER_VERSION].value}. Lists of named items are keyed by name;
 * the template hash itself is left out.
 */
public final class TemplateDiff {

    private TemplateDiff() {}

    public static List<String> paths(PodTemplateSpec before, PodTemplateSpec after) {
        List<String> out = new ArrayList<>();
        diff(tree(before), tree(after), "", out);
        return out;
    }

    private static JsonNode tree(PodTemplateSpec t) {
        JsonNode n = Serialization.jsonMapper().valueToTree(t);
        JsonNode annotations = n.path("metadata").path("annotations");
        if (annotations instanceof ObjectNode o) {
            o.remove(PodContract.TEMPLATE_HASH_ANNOTATION);
            if (o.isEmpty()) {
                ((ObjectNode) n.path("metadata")).remove("annotations");
            }
        }
        return n;
    }

    private static void diff(JsonNode a, JsonNode b, String path, List<String> out) {
        if (a.equals(b)) {
            return;
        }
        if (a.isObject() && b.isObject()) {
            Set<String> keys = new LinkedHashSet<>();
            a.fieldNames().forEachRemaining(keys::add);
            b.fieldNames().forEachRemaining(keys::add);
            for (String k : keys) {
                diff(a.path(k), b.path(k), join(path, k), out);
            }
        } else if (a.isArray() && b.isArray() && named(a) && named(b)) {
            Set<String> names = new LinkedHashSet<>();
            names(a).forEachRemaining(names::add);
            names(b).forEachRemaining(names::add);
            for (String name : names) {
                diff(byName(a, name), byName(b, name), path + "[" + name + "]", out);
            }
        } else {
            out.add(path.isEmpty() ? "(template)" : path);
        }
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static boolean named(JsonNode array) {
        for (JsonNode item : array) {
            if (!item.isObject() || !item.path("name").isTextual()) {
                return false;
            }
        }
        return !array.isEmpty();
    }

    private static Iterator<String> names(JsonNode array) {
        List<String> names = new ArrayList<>();
        array.forEach(item -> names.add(item.path("name").asText()));
        return names.iterator();
    }

    private static JsonNode byName(JsonNode array, String name) {
        for (JsonNode item : array) {
            if (item.path("name").asText().equals(name)) {
                return item;
            }
        }
        return MissingNode.getInstance();
    }
}
