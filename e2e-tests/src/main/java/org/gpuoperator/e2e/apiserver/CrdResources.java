package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a CustomResourceDefinition (parsed JSON) into the resource types and printer columns it
 * defines.
 */
public final class CrdResources {

    private CrdResources() {}

    /** One resource type per served version. */
    public static List<ApiResource> fromCrd(Map<String, Object> crd) {
        Map<String, Object> spec = Json.map(crd, "spec");
        Map<String, Object> names = Json.map(spec, "names");
        String group = Json.string(spec, "group");
        String plural = Json.string(names, "plural");
        String kind = Json.string(names, "kind");
        if (group == null || plural == null || kind == null) {
            throw new IllegalArgumentException(
                    "CRD " + Json.name(crd) + " lacks spec.group, names.plural or names.kind");
        }
        boolean namespaced = !"Cluster".equals(Json.string(spec, "scope"));
        List<ApiResource> out = new ArrayList<>();
        for (Map<String, Object> v : Json.maps(spec, "versions")) {
            if (Boolean.FALSE.equals(v.get("served"))) {
                continue;
            }
            List<ApiResource.Subresource> subs = new ArrayList<>();
            Map<String, Object> sr = Json.map(v, "subresources");
            if (sr.containsKey("status")) {
                subs.add(ApiResource.Subresource.of("status", "get", "patch", "update"));
            }
            if (sr.containsKey("scale")) {
                subs.add(ApiResource.Subresource.of("scale", "get", "patch", "update"));
            }
            out.add(
                    new ApiResource(
                            group,
                            Json.string(v, "name"),
                            plural,
                            Json.string(names, "singular"),
                            kind,
                            namespaced,
                            ApiResource.ALL_VERBS,
                            Json.strings(names, "shortNames"),
                            Json.strings(names, "categories"),
                            subs));
        }
        return out;
    }

    /** The version's additionalPrinterColumns, empty when it declares none. */
    public static List<PrinterColumns.Column> printerColumns(
            Map<String, Object> crd, String version) {
        for (Map<String, Object> v : Json.maps(Json.map(crd, "spec"), "versions")) {
            if (version.equals(v.get("name"))) {
                List<PrinterColumns.Column> cols = new ArrayList<>();
                for (Map<String, Object> c : Json.maps(v, "additionalPrinterColumns")) {
                    Object prio = c.get("priority");
                    cols.add(
                            new PrinterColumns.Column(
                                    Json.string(c, "name"),
                                    Json.string(c, "type"),
                                    Json.string(c, "description"),
                                    prio instanceof Number n ? n.intValue() : 0,
                                    Json.string(c, "jsonPath")));
                }
                return cols;
            }
        }
        return List.of();
    }
}
