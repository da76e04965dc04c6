package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.validation.ClusterPolicyReader;
import org.gpuoperator.api.validation.ValidationProblem;

/** Reads the files the CLI takes, with errors that name the file. */
final class PolicyFiles {

    private PolicyFiles() {}

    /** A policy file's spec, or every problem that prevents reading it. */
    record Read(ClusterPolicySpec spec, List<String> errors) {}

    static Read readPolicy(Path file) {
        String text = read(file);
        Object kind;
        try {
            Map<?, ?> raw = Serialization.unmarshal(text, Map.class);
            kind = raw == null ? null : raw.get("kind");
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    file + ": not valid YAML: " + firstLine(e.getMessage()), e);
        }
        if (!ClusterPolicy.KIND.equals(kind)) {
            throw new IllegalArgumentException(
                    file
                            + ": expected kind ClusterPolicy (apiVersion nvidia.com/v1), got "
                            + (kind == null ? "no kind" : kind));
        }
        ClusterPolicyReader.Result result = ClusterPolicyReader.read(text, file.toString());
        List<String> errors =
                result.problems().stream()
                        .filter(ValidationProblem::isError)
                        .map(p -> p.path() + ": " + p.message())
                        .toList();
        if (!errors.isEmpty() || result.policy().isEmpty()) {
            return new Read(
                    null, errors.isEmpty() ? List.of("cannot read a ClusterPolicy") : errors);
        }
        ClusterPolicySpec spec = result.policy().get().getSpec();
        return new Read(spec == null ? new ClusterPolicySpec() : spec, List.of());
    }

    /** A YAML sequence of Node objects, a v1 List, or a multi-document stream of Nodes. */
    static List<Node> readNodes(Path file) {
        return readObjects(file, Set.of("Node")).stream().map(Node.class::cast).toList();
    }

    /**
     * NVIDIADriver objects ({@code nvidia.com/v1alpha1}) from a YAML sequence, a v1 List, or a
     * multi-document stream.
     */
    static List<NVIDIADriver> readNvidiaDrivers(Path file) {
        return readObjects(file, Set.of("NVIDIADriver")).stream()
                .map(NVIDIADriver.class::cast)
                .toList();
    }

    /**
     * Objects of the given kinds from a YAML sequence, a v1 List, or a multi-document stream;
     * another kind is an error naming the item.
     */
    private static final Pattern SEQUENCE_START = Pattern.compile("-(\\s|$)");

    static List<HasMetadata> readObjects(Path file, Set<String> kinds) {
        String text = read(file);
        List<?> items;
        try {
            // a sequence's first item, not a document marker: kubectl's streams open with "---"
            if (SEQUENCE_START.matcher(text.stripLeading()).lookingAt()) {
                items = Serialization.unmarshal(text, List.class);
            } else {
                Object parsed = Serialization.unmarshal(text);
                items =
                        parsed instanceof List<?> l
                                ? l
                                : parsed instanceof KubernetesList kl
                                        ? kl.getItems()
                                        : List.of(parsed);
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    file
                            + ": not valid YAML for "
                            + String.join("/", new TreeSet<>(kinds))
                            + "s: "
                            + firstLine(e.getMessage()),
                    e);
        }
        List<HasMetadata> objects = new ArrayList<>();
        int i = 0;
        for (Object item : items) {
            Object kind =
                    item instanceof HasMetadata h
                            ? h.getKind()
                            : item instanceof Map<?, ?> m ? m.get("kind") : null;
            if (!(kind instanceof String k) || !kinds.contains(k)) {
                throw new IllegalArgumentException(
                        file
                                + ": item "
                                + i
                                + " is not a "
                                + String.join(" or ", new TreeSet<>(kinds))
                                + " but "
                                + (kind == null ? String.valueOf(item) : kind));
            }
            Class<? extends HasMetadata> type =
                    switch (k) {
                        case "Node" -> Node.class;
                        case "NVIDIADriver" -> NVIDIADriver.class;
                        default -> Pod.class;
                    };
            HasMetadata object;
            try {
                object =
                        type.isInstance(item)
                                ? (HasMetadata) item
                                : Serialization.jsonMapper().convertValue(item, type);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        file + ": item " + i + " (" + k + "): " + firstLine(e.getMessage()), e);
            }
            if (object.getMetadata() == null || object.getMetadata().getName() == null) {
                throw new IllegalArgumentException(file + ": item " + i + " has no metadata.name");
            }
            objects.add(object);
            i++;
        }
        return objects;
    }

    /** The single GPU node that render assumes by default (NFD's NVIDIA PCI label). */
    static List<Node> defaultNodes() {
        return List.of(
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("gpu-node")
                        .withLabels(Map.of("feature.node.kubernetes.io/pci-10de.present", "true"))
                        .endMetadata()
                        .build());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
