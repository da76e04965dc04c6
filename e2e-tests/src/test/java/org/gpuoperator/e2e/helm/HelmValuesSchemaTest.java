package org.gpuoperator.e2e.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * values.schema.json is what {@link HelmValuesSchema} computes from the ClusterPolicy CRD.
 * Regenerate after a CRD change: {@code ./mvnw -o -pl e2e-tests -am test
 * -Dtest=HelmValuesSchemaTest -Dsurefire.failIfNoSpecifiedTests=false -Dhelm.schema.write=true}.
 */
class HelmValuesSchemaTest {

    static final String REFRESH =
            "./mvnw -o -pl e2e-tests -am test -Dtest='Helm*Test'"
                    + " -Dsurefire.failIfNoSpecifiedTests=false -Dhelm.chart.update=true";
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path CHART = REPO.resolve("deploy/helm/gpu-operator");
    static final Path CRD = REPO.resolve("deploy/crds/clusterpolicies.nvidia.com-v1.yml");

    @Test
    void checkedInSchemaIsTheOneGeneratedFromTheCrd() throws Exception {
        Path file = CHART.resolve("values.schema.json");
        String generated = HelmValuesSchema.text(HelmValuesSchema.fromCrdFile(CRD));
        if (Boolean.getBoolean("helm.chart.update")) {
            Files.writeString(file, generated);
        }
        assertThat(Files.readString(file))
                .as("%s is stale: run %s", REPO.relativize(file), REFRESH)
                .isEqualTo(generated);
    }

    @Test
    void everyClusterPolicySpecFieldIsAClosedTopLevelValue() throws Exception {
        JsonNode crd = new YAMLMapper().readTree(CRD.toFile());
        JsonNode schema = HelmValuesSchema.generate(crd);
        JsonNode spec = HelmValuesSchema.specSchema(crd);
        assertThat(schema.path("additionalProperties").asBoolean(true)).isFalse();
        spec.path("properties")
                .properties()
                .forEach(f -> assertThat(schema.path("properties").has(f.getKey())).isTrue());
        JsonNode driver = schema.path("properties").path("driver");
        assertThat(driver.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(driver.path("properties").path("enabled").path("type").asText())
                .isEqualTo("boolean");
        // nested objects are closed too; int-or-string keeps both types
        JsonNode upgrade = driver.path("properties").path("upgradePolicy");
        assertThat(upgrade.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(upgrade.path("properties").path("maxUnavailable").path("anyOf")).hasSize(2);
        assertThat(schema.toString()).doesNotContain("x-kubernetes-");
        assertThat(schema.path("required")).isEqualTo(spec.path("required"));
    }

    @Test
    void theTemplatePassesToThePolicyExactlyTheOperatorFieldsTheCrdHas() throws Exception {
        JsonNode crd = new YAMLMapper().readTree(CRD.toFile());
        Matcher m =
                Pattern.compile(
                                "define \"gpu-operator.policyOperatorKeys\" -}}\\s*\\n([^{]+)\\n\\{\\{-"
                                        + " end")
                        .matcher(Files.readString(CHART.resolve("templates/_helpers.tpl")));
        assertThat(m.find()).as("gpu-operator.policyOperatorKeys in _helpers.tpl").isTrue();
        List<String> inTemplate = Arrays.stream(m.group(1).trim().split(" ")).sorted().toList();
        assertThat(inTemplate).isEqualTo(HelmValuesSchema.policyOperatorKeys(crd));
    }

    @Test
    void aCrdWithoutSpecSchemaIsRefusedByName() {
        assertThatThrownBy(
                        () ->
                                HelmValuesSchema.generate(
                                        new YAMLMapper()
                                                .readTree("metadata: {name: x.nvidia.com}\n")))
                .hasMessageContaining("x.nvidia.com");
    }
}
