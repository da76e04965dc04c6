package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code fieldSelector} ({@code involvedObject.name=p,type!=Normal}) evaluated on stored objects,
 * with the field labels kube-apiserver accepts for each kind; the mock reads only {@code
 * metadata.name} and {@code metadata.namespace} and ignores the rest, so {@code kubectl describe}
 * would list every event and every pod.
 */
public final class FieldSelector {

    /** One {@code field=value} ({@code ==} is the same) or {@code field!=value}. */
    record Requirement(String field, boolean equal, String value) {}

    private static final Set<String> METADATA = Set.of("metadata.name", "metadata.namespace");

    /** The labels each kind accepts besides metadata.name and metadata.namespace. */
    private static final Map<String, Set<String>> LABELS =
            Map.of(
                    "events",
                    Set.of(
                            "involvedObject.kind",
                            "involvedObject.namespace",
                            "involvedObject.name",
                            "involvedObject.uid",
                            "involvedObject.apiVersion",
                            "involvedObject.resourceVersion",
                            "involvedObject.fieldPath",
                            "reason",
                            "reportingComponent",
                            "source",
                            "type"),
                    "pods",
                    Set.of(
                            "spec.nodeName",
                            "spec.restartPolicy",
                            "spec.schedulerName",
                            "spec.serviceAccountName",
                            "spec.hostNetwork",
                            "status.phase",
                            "status.podIP",
                            "status.nominatedNodeName"),
                    "nodes",
                    Set.of("spec.unschedulable"),
                    "secrets",
                    Set.of("type"),
                    "namespaces",
                    Set.of("status.phase"),
                    "replicasets",
                    Set.of("status.replicas"),
                    "jobs",
                    Set.of("status.successful"));

    private final List<Requirement> requirements;

    private FieldSelector(List<Requirement> requirements) {
        this.requirements = List.copyOf(requirements);
    }

    /**
     * @param resource the plural resource name the selector lists, e.g. {@code events}
     * @throws IllegalArgumentException a malformed requirement, or a field the kind does not offer
     *     (kube-apiserver's {@code field label not supported: X})
     */
    public static FieldSelector parse(String selector, String resource) {
        List<Requirement> rs = new ArrayList<>();
        for (String part : selector.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int ne = p.indexOf("!=");
            int eq = p.indexOf('=');
            Requirement r;
            if (ne >= 0 && ne <= eq) {
                r = new Requirement(p.substring(0, ne).strip(), false, p.substring(ne + 2).strip());
            } else if (eq >= 0) {
                String value = p.substring(eq + 1);
                r =
                        new Requirement(
                                p.substring(0, eq).strip(),
                                true,
                                (value.startsWith("=") ? value.substring(1) : value).strip());
            } else {
                throw new IllegalArgumentException(
                        "invalid selector: '" + selector + "'; can't understand '" + p + "'");
            }
            if (!METADATA.contains(r.field())
                    && !LABELS.getOrDefault(resource, Set.of()).contains(r.field())) {
                throw new IllegalArgumentException("field label not supported: " + r.field());
            }
            rs.add(r);
        }
        return new FieldSelector(rs);
    }

    public boolean isEmpty() {
        return requirements.isEmpty();
    }

    /** The one object it selects by name ({@code metadata.name=NAME}), if it does. */
    public Optional<String> name() {
        return requirements.stream()
                .filter(r -> r.equal() && r.field().equals("metadata.name"))
                .map(Requirement::value)
                .findFirst();
    }

    /** True when every requirement holds; a missing field reads as the empty string. */
    public boolean matches(Map<String, Object> obj) {
        for (Requirement r : requirements) {
            if (value(obj, r.field()).equals(r.value()) != r.equal()) {
                return false;
            }
        }
        return true;
    }

    /** The selectable field's value as kube-apiserver exposes it. */
    static String value(Map<String, Object> obj, String field) {
        String path =
                switch (field) {
                    case "source" -> "source.component";
                    default -> field;
                };
        Object at = obj;
        for (String step : path.split("\\.")) {
            at = at instanceof Map<?, ?> m ? m.get(step) : null;
        }
        if (at != null) {
            return at.toString();
        }
        // Go's zero values, which its JSON leaves out
        return switch (field) {
            case "spec.hostNetwork", "spec.unschedulable" -> "false";
            case "status.replicas", "status.successful" -> "0";
            default -> "";
        };
    }
}
