package org.gpuoperator.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.gpuoperator.api.crd.ModuleFiles;
import org.junit.jupiter.api.Test;

/** Broken inputs read from text: each problem names the path of the broken field. */
class ClusterPolicyReaderTest {
    private static final String DEFAULT =
            ModuleFiles.read(ModuleFiles.SAMPLES.resolve("clusterpolicy-default.yaml"));

    @Test
    void wrongEnumNamesTheFieldAndTheAllowedValues() {
        String driverPolicy = "version: \"595.91.07\"\n    imagePullPolicy: IfNotPresent";
        assertThat(DEFAULT).contains(driverPolicy);
        List<ValidationProblem> problems =
                read(
                        DEFAULT.replace(
                                driverPolicy, driverPolicy.replace("IfNotPresent", "Sometimes")));

        assertThat(problems)
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.path()).isEqualTo("spec.driver.imagePullPolicy");
                            assertThat(p.message())
                                    .startsWith(
                                            "unknown value \"Sometimes\"; expected one of Always, IfNotPresent, Never");
                            assertThat(p.message()).contains("policy.yaml line ");
                        });
    }

    @Test
    void unknownMigStrategyNamesTheField() {
        int line = DEFAULT.substring(0, DEFAULT.indexOf("strategy: single")).split("\n").length;
        assertThat(read(DEFAULT.replace("strategy: single", "strategy: auto")))
                .singleElement()
                .hasToString(
                        "ERROR spec.mig.strategy: unknown value \"auto\"; expected one of none, single, mixed (policy.yaml line "
                                + line
                                + ")");
    }

    @Test
    void wrongTypeNamesTheField() {
        assertThat(read(DEFAULT.replace("maxParallelUpgrades: 1", "maxParallelUpgrades: two")))
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.path())
                                    .isEqualTo("spec.driver.upgradePolicy.maxParallelUpgrades");
                            assertThat(p.message()).startsWith("expected an integer");
                        });
    }

    @Test
    void quotedNumberIsNotCoerced() {
        assertThat(read(DEFAULT.replace("timeoutSeconds: 300", "timeoutSeconds: \"300\"")))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.driver.upgradePolicy.podDeletion.timeoutSeconds");
    }

    @Test
    void wrongTypeInAListNamesTheIndex() {
        String broken =
                DEFAULT.replace(
                        "        operator: Exists\n",
                        "        operator: Exists\n        tolerationSeconds: soon\n");
        assertThat(broken).isNotEqualTo(DEFAULT);

        assertThat(read(broken))
                .extracting(ValidationProblem::path)
                .containsExactly("spec.daemonsets.tolerations[0].tolerationSeconds");
    }

    @Test
    void negativeCountNamesTheField() {
        assertThat(read(DEFAULT.replace("maxParallelUpgrades: 1", "maxParallelUpgrades: -3")))
                .singleElement()
                .hasToString(
                        "ERROR spec.driver.upgradePolicy.maxParallelUpgrades: must be at least 0, was -3");
    }

    @Test
    void missingRequiredSectionNamesTheField() {
        String broken =
                DEFAULT.replace(
                        """
          gfd:
            enabled: true
        """,
                        "");

        assertThat(read(broken)).singleElement().hasToString("ERROR spec.gfd: is required");
    }

    @Test
    void wrongKindIsAnError() {
        assertThat(read(DEFAULT.replace("kind: ClusterPolicy", "kind: NVIDIADriver")))
                .extracting(ValidationProblem::path)
                .containsExactly("kind");
    }

    @Test
    void invalidYamlNamesTheSourceAndLine() {
        assertThat(read("spec:\n  driver: {}\n- oops\n"))
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.isError()).isTrue();
                            assertThat(p.message())
                                    .startsWith("policy.yaml: not valid YAML/JSON at line ");
                            assertThat(p).asString().startsWith("ERROR policy.yaml: not valid");
                        });
    }

    private static List<ValidationProblem> read(String text) {
        ClusterPolicyReader.Result result = ClusterPolicyReader.read(text, "policy.yaml");
        assertThat(result.hasErrors()).isTrue();
        return result.problems();
    }
}
