package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A new version of the chart for the upgrade tests, made from a copy of deploy/helm/gpu-operator.
 */
final class ChartVersions {

    static final String CRD = "clusterpolicies.nvidia.com";
    static final String NEW_FIELD = "helmUpgradeProbe";
    static final String VERSION_ANNOTATION = "gpuoperator.org/chart-version";

    private ChartVersions() {}

    /** The chart at 0.2.0: a new optional CRD field, the pod template annotated, no Service. */
    @SuppressWarnings("unchecked")
    static Path v020(Path dir) throws Exception {
        Path src = RepoRoot.find().resolve("deploy/helm/gpu-operator");
        Path copy = dir.resolve("v2/gpu-operator");
        try (Stream<Path> files = Files.walk(src)) {
            for (Path f : files.toList()) {
                Path to = copy.resolve(src.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        Path chart = copy.resolve("Chart.yaml");
        String text = Files.readString(chart);
        assertThat(text).contains("\nversion: 0.1.0\n");
        Files.writeString(chart, text.replace("\nversion: 0.1.0\n", "\nversion: 0.2.0\n"));

        Path crd = copy.resolve("crds/" + CRD + "-v1.yml");
        YAMLMapper yaml = new YAMLMapper();
        Map<String, Object> o = yaml.readValue(crd.toFile(), Map.class);
        for (Map<String, Object> v :
                (List<Map<String, Object>>) ((Map<String, Object>) o.get("spec")).get("versions")) {
            Map<String, Object> spec =
                    at(v, "schema", "openAPIV3Schema", "properties", "spec", "properties");
            spec.put(NEW_FIELD, Map.of("type", "string", "description", "added by chart 0.2.0"));
        }
        yaml.writeValue(crd.toFile(), o);

        Path operator = copy.resolve("templates/operator.yaml");
        text = Files.readString(operator);
        String podMeta = "  template:\n    metadata:\n";
        int service = text.indexOf("---\napiVersion: v1\nkind: Service\n");
        assertThat(text).contains(podMeta);
        assertThat(service).isPositive();
        Files.writeString(
                operator,
                text.substring(0, service)
                        .replace(
                                podMeta,
                                podMeta
                                        + "      annotations:\n        "
                                        + VERSION_ANNOTATION
                                        + ": \"0.2.0\"\n"));
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Map<String, Object> o, String... path) {
        Object cur = o;
        for (String p : path) {
            cur = ((Map<String, Object>) cur).get(p);
        }
        return (T) cur;
    }
}
