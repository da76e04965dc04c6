package org.gpuoperator.controller.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.validation.SetFields;
import org.gpuoperator.controller.cli.RenderedPolicy;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@link FieldsRead#TABLE} honest: every field of a policy with every upstream field set is
 * either covered by the table or warned about, and every entry of the table changes what is
 * rendered (objects, node labels or status warnings) when its field changes.
 */
class FieldsReadTest {

    static final Path EVERY_FIELD =
            Path.of("src/test/resources/policies/clusterpolicy-every-field.yaml");
    static final Path CRD = Path.of("../deploy/crds/clusterpolicies.nvidia.com-v1.yml");
    static final Path README = Path.of("README.md");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /**
     * A default GPU node (NFD label), and nodes carrying the sample's and the changed nodeLabel.
     */
    static final List<Node> NODES =
            List.of(
                    node("nfd-gpu-node", "feature.node.kubernetes.io/pci-10de.present"),
                    node("sample-simulated", "example.com/simulated-gpu"),
                    node("changed-simulated", "gpuoperator.org/other-simulated-gpu"));

    @Test
    void theSamplePolicySetsEveryPropertyOfTheCrdSchema() throws Exception {
        Map<String, Object> crd = yaml(CRD);
        Map<?, ?> schema =
                (Map<?, ?>)
                        ((Map<?, ?>)
                                ((Map<?, ?>)
                                                get(
                                                        crd,
                                                        "spec.versions[0].schema.openAPIV3Schema.properties"))
                                        .get("spec"));
        List<String> schemaPaths = new ArrayList<>();
        schemaLeaves(schema, "spec", schemaPaths);
        TreeSet<String> samplePaths = new TreeSet<>();
        for (String leaf : yamlLeaves(yaml(EVERY_FIELD).get("spec"), "spec")) {
            samplePaths.add(leaf.replaceAll("\\[[0-9]+\\]", "[*]"));
        }
        List<String> missing =
                schemaPaths.stream()
                        .filter(p -> samplePaths.stream().noneMatch(s -> FieldsRead.covers(p, s)))
                        .toList();
        assertThat(schemaPaths).hasSizeGreaterThan(300);
        assertThat(missing)
                .as(
                        "schema properties the sample does not set (regenerate or extend %s)",
                        EVERY_FIELD)
                .isEmpty();
    }

    @Test
    void everyFieldSetInTheFullPolicyIsReadOrWarned() throws Exception {
        Map<String, Object> tree = yaml(EVERY_FIELD);
        RenderedPolicy rendered = render(tree);
        assertThat(rendered.errors()).isEmpty();
        List<String> warned = rendered.warnings().stream().map(w -> dotted(w.getPath())).toList();
        Map<String, Object> effectiveLeaves = effectiveLeaves(rendered, tree);
        List<String> silent = new ArrayList<>();
        for (String leaf : yamlLeaves(tree.get("spec"), "spec")) {
            boolean read = FieldsRead.coveringEntry(leaf, effectiveLeaves).isPresent();
            boolean warnedAbout =
                    warned.stream()
                            .anyMatch(
                                    w ->
                                            leaf.equals(w)
                                                    || leaf.startsWith(w + ".")
                                                    || leaf.startsWith(w + "["));
            if (!read && !warnedAbout) {
                silent.add(leaf);
            }
        }
        assertThat(silent).as("fields set, neither in FieldsRead.TABLE nor warned").isEmpty();
        List<String> leaves = yamlLeaves(tree.get("spec"), "spec");
        assertThat(warned)
                .as("warnings name fields that are set")
                .allMatch(w -> leaves.stream().anyMatch(l -> FieldsRead.covers(w, l)));
        assertThat(rendered.warnings())
                .extracting(PolicyWarning::getPath)
                .contains(
                        "spec.gds.enabled",
                        "spec.driver.useOpenKernelModules",
                        "spec.hostPaths.rootFS");
        assertThat(rendered.warnings())
                .extracting(PolicyWarning::getPath)
                .noneMatch(p -> p.startsWith("spec.driver.upgradePolicy"));
        assertThat(rendered.warnings())
                .filteredOn(w -> w.getPath().equals("spec.gds.enabled"))
                .extracting(PolicyWarning::getMessage)
                .containsExactly(
                        FieldsRead.NOT_ACTED_ON + " (not implemented by this operator; ignored)");
    }

    @Test
    void aFieldOfNoEntryIsWarnedAndAnEntryFieldIsNot() throws Exception {
        Map<String, Object> tree = yaml(EVERY_FIELD);
        List<String> paths = render(tree).warnings().stream().map(PolicyWarning::getPath).toList();
        assertThat(paths).contains("spec.driver.useOpenKernelModules", "spec.validator.enabled");
        assertThat(paths).doesNotContain("spec.driver.kernelModuleType");
        assertThat(paths)
                .noneMatch(p -> p.startsWith("spec.driver.env") || p.equals("spec.mig.strategy"));
        put(tree, "spec.driver.someFutureField", "x");
        assertThat(render(tree).warnings())
                .filteredOn(w -> w.getPath().equals("spec.driver.someFutureField"))
                .extracting(PolicyWarning::getMessage)
                .singleElement()
                .asString()
                .startsWith(FieldsRead.NOT_ACTED_ON)
                .contains("unknown field");
    }

    /** The generic "mutate and re-render" check: each READ entry's field is really acted on. */
    @Test
    void changingTheFieldOfEveryReadEntryChangesWhatIsRendered() throws Exception {
        String before = rendering(render(yaml(EVERY_FIELD)));
        List<String> notActedOn = new ArrayList<>();
        for (FieldsRead.Entry entry : FieldsRead.TABLE) {
            if (entry.kind() != FieldsRead.Kind.READ) {
                continue;
            }
            Map<String, Object> tree = yaml(EVERY_FIELD);
            put(
                    tree,
                    entry.path().replace("[*]", ""),
                    YAML.readValue(entry.changed(), Object.class));
            RenderedPolicy after = render(tree);
            assertThat(after.errors()).as(entry.path()).isEmpty();
            if (rendering(after).equals(before)) {
                notActedOn.add(entry.path());
            }
        }
        assertThat(notActedOn).as("table entries whose change renders nothing different").isEmpty();
    }

    /**
     * OFF_ONLY entries: switched on, the fields under them are warned about; off, they are honoured
     * (the validator's own warnings about values, e.g. deprecated fields, may remain).
     */
    @Test
    void everyOffOnlyEntryWarnsWhileOnAndIsQuietWhileOff() throws Exception {
        for (FieldsRead.Entry entry : FieldsRead.TABLE) {
            if (entry.kind() != FieldsRead.Kind.OFF_ONLY) {
                continue;
            }
            Map<String, Object> tree = yaml(EVERY_FIELD);
            assertThat(warningsUnder(render(tree), entry.path())).as(entry.path()).isNotEmpty();
            String switchPath =
                    get(tree, entry.path()) instanceof Boolean
                            ? entry.path()
                            : entry.path() + ".enabled";
            put(tree, switchPath, false);
            assertThat(warningsUnder(render(tree), entry.path())).as(entry.path()).isEmpty();
        }
    }

    @Test
    void theReadmeListsExactlyTheTable() throws Exception {
        String readme = Files.readString(README);
        String begin = "<!-- fields-read:begin (generated from FieldsRead.TABLE) -->\n";
        String end = "<!-- fields-read:end -->";
        int from = readme.indexOf(begin);
        int to = readme.indexOf(end);
        assertThat(from).as("README marker").isNotNegative();
        String expected = FieldsRead.markdown();
        if (Boolean.getBoolean("readme.update")) {
            Files.writeString(
                    README,
                    readme.substring(0, from + begin.length()) + expected + readme.substring(to));
            return;
        }
        assertThat(readme.substring(from + begin.length(), to))
                .as("README table (refresh: -Dreadme.update=true)")
                .isEqualTo(expected);
    }

    // ---- helpers

    private static List<String> warningsUnder(RenderedPolicy rendered, String path) {
        return rendered.warnings().stream()
                .filter(w -> w.getMessage().startsWith(FieldsRead.NOT_ACTED_ON))
                .map(PolicyWarning::getPath)
                .filter(p -> FieldsRead.covers(path, p))
                .toList();
    }

    /** What the render pipeline produces: objects, node labels and the status warnings. */
    private static String rendering(RenderedPolicy rendered) {
        return rendered.yaml() + "\n" + rendered.warningLines();
    }

    private static RenderedPolicy render(Map<String, Object> tree) {
        ClusterPolicy policy = Serialization.jsonMapper().convertValue(tree, ClusterPolicy.class);
        return RenderedPolicy.of(policy.getSpec(), NODES, "gpu-operator", Map.of());
    }

    private static Map<String, Object> effectiveLeaves(
            RenderedPolicy rendered, Map<String, Object> tree) {
        ClusterPolicy policy = Serialization.jsonMapper().convertValue(tree, ClusterPolicy.class);
        Map<String, Object> leaves = new LinkedHashMap<>();
        SetFields.of(
                        org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(
                                policy.getSpec()),
                        "spec")
                .forEach(f -> leaves.putIfAbsent(f.path(), f.value()));
        return leaves;
    }

    /** Warning paths write map keys as {@code [key]}; the YAML walk writes {@code .key}. */
    private static String dotted(String path) {
        return path.replaceAll("\\[([^\\]0-9][^\\]]*)\\]", ".$1");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(Path file) throws Exception {
        return YAML.readValue(Files.readString(file), Map.class);
    }

    static List<String> yamlLeaves(Object node, String path) {
        List<String> leaves = new ArrayList<>();
        if (node instanceof Map<?, ?> map && !map.isEmpty()) {
            map.forEach((k, v) -> leaves.addAll(yamlLeaves(v, path + "." + k)));
        } else if (node instanceof List<?> list && !list.isEmpty()) {
            for (int i = 0; i < list.size(); i++) {
                leaves.addAll(yamlLeaves(list.get(i), path + "[" + i + "]"));
            }
        } else if (node != null) {
            leaves.add(path);
        }
        return leaves;
    }

    /** Every property path of the schema; map values and list items as {@code [*]}. */
    private static void schemaLeaves(Map<?, ?> schema, String path, List<String> out) {
        Map<?, ?> properties = (Map<?, ?>) schema.get("properties");
        if (properties != null) {
            properties.forEach((k, v) -> schemaLeaves((Map<?, ?>) v, path + "." + k, out));
        } else if (schema.get("items") instanceof Map<?, ?> items) {
            schemaLeaves(items, path + "[*]", out);
        } else {
            // a map (additionalProperties) counts as set when the sample sets any key of it
            out.add(path);
        }
    }

    private static Object get(Object root, String path) {
        Object node = root;
        for (String part : path.split("\\.")) {
            String key = part.replaceAll("\\[.*", "");
            node = node instanceof Map<?, ?> m ? m.get(key) : null;
            java.util.regex.Matcher index =
                    java.util.regex.Pattern.compile("\\[([0-9]+)\\]").matcher(part);
            while (index.find() && node instanceof List<?> l) {
                node = l.get(Integer.parseInt(index.group(1)));
            }
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> root, String path, Object value) {
        String[] parts = path.split("\\.");
        Map<String, Object> node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            node = (Map<String, Object>) node.computeIfAbsent(parts[i], k -> new LinkedHashMap<>());
        }
        node.put(parts[parts.length - 1], value);
    }

    private static Node node(String name, String label) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of(label, "true"))
                .endMetadata()
                .build();
    }
}
