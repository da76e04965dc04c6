package org.gpuoperator.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Samples pass the generated CRD schema; broken inputs fail with the path of the broken field. */
class CrdSchemaValidationTest {
    private static final CrdJsonSchema CLUSTER_POLICY =
            CrdJsonSchema.load(
                    ModuleFiles.GENERATED_CRDS.resolve(ClusterPolicy.CRD_NAME + "-v1.yml"));
    private static final CrdJsonSchema NVIDIA_DRIVER =
            CrdJsonSchema.load(
                    ModuleFiles.GENERATED_CRDS.resolve(NVIDIADriver.CRD_NAME + "-v1.yml"));

    static List<Path> examples() {
        return ModuleFiles.allExamples();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void exampleIsValid(Path file) throws Exception {
        JsonNode resource = CrdJsonSchema.YAML.readTree(file.toFile());
        CrdJsonSchema schema =
                resource.path("kind").asText().equals(NVIDIADriver.KIND)
                        ? NVIDIA_DRIVER
                        : CLUSTER_POLICY;

        assertThat(schema.validate(resource)).as(file.toString()).isEmpty();
    }

    @Test
    void wrongEnumIsRejectedWithItsPath() {
        assertThat(brokenDefault(spec -> driver(spec).put("imagePullPolicy", "Sometimes")))
                .singleElement()
                .asString()
                .startsWith("spec.driver.imagePullPolicy: ")
                .contains("enumeration");
    }

    @Test
    void unknownMigStrategyIsRejectedWithItsPath() {
        assertThat(brokenDefault(spec -> ((ObjectNode) spec.get("mig")).put("strategy", "auto")))
                .singleElement()
                .asString()
                .startsWith("spec.mig.strategy: ")
                .contains("enumeration");
    }

    @Test
    void wrongTypeIsRejectedWithItsPath() {
        assertThat(brokenDefault(spec -> upgradePolicy(spec).put("maxParallelUpgrades", "two")))
                .singleElement()
                .asString()
                .startsWith("spec.driver.upgradePolicy.maxParallelUpgrades: ")
                .contains("string found, integer expected");
    }

    @Test
    void negativeCountIsRejectedWithItsPath() {
        assertThat(brokenDefault(spec -> upgradePolicy(spec).put("maxParallelUpgrades", -1)))
                .singleElement()
                .asString()
                .startsWith("spec.driver.upgradePolicy.maxParallelUpgrades: ")
                .contains("minimum");
    }

    @Test
    void negativeProbeSecondsAreRejectedWithTheirPath() {
        assertThat(
                        brokenDefault(
                                spec ->
                                        driver(spec)
                                                .putObject("startupProbe")
                                                .put("initialDelaySeconds", -5)))
                .singleElement()
                .asString()
                .startsWith("spec.driver.startupProbe.initialDelaySeconds: ");
    }

    @Test
    void missingRequiredSectionIsRejectedWithItsPath() {
        assertThat(brokenDefault(spec -> spec.remove("toolkit")))
                .singleElement()
                .asString()
                .startsWith("spec.toolkit: ")
                .contains("required");
    }

    @Test
    void badMaxUnavailableAndImageNameAreRejected() {
        assertThat(
                        brokenDefault(
                                spec -> {
                                    ((ObjectNode) spec.get("daemonsets").get("rollingUpdate"))
                                            .put("maxUnavailable", "one");
                                    driver(spec).put("image", "!!!");
                                }))
                .hasSize(2)
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .startsWith(
                                                "spec.daemonsets.rollingUpdate.maxUnavailable: "))
                .anySatisfy(p -> assertThat(p).startsWith("spec.driver.image: "));
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        assertThat(
                        brokenDefault(
                                spec -> {
                                    spec.remove("gfd");
                                    ((ObjectNode) spec.get("mig")).put("strategy", "auto");
                                    upgradePolicy(spec).put("maxParallelUpgrades", -1);
                                }))
                .hasSize(3);
    }

    @Test
    void unknownFieldsPassBecauseTheyArePreserved() {
        assertThat(brokenDefault(spec -> driver(spec).put("someFutureField", true))).isEmpty();
    }

    @Test
    void statusStateIsAnEnum() throws Exception {
        ObjectNode policy = defaultPolicy();
        policy.putObject("status").put("state", "almostReady");

        assertThat(CLUSTER_POLICY.validate(policy))
                .singleElement()
                .asString()
                .startsWith("status.state: ");
    }

    @Test
    void nvidiaDriverTypeIsAnEnum() throws Exception {
        ObjectNode driver =
                (ObjectNode)
                        CrdJsonSchema.YAML.readTree(
                                ModuleFiles.TEST_POLICIES
                                        .resolve("nvidiadriver-upstream.yaml")
                                        .toFile());
        ((ObjectNode) driver.get("spec")).put("driverType", "cpu");

        assertThat(NVIDIA_DRIVER.validate(driver))
                .singleElement()
                .asString()
                .startsWith("spec.driverType: ");
    }

    private static List<String> brokenDefault(Consumer<ObjectNode> breakSpec) {
        try {
            ObjectNode policy = defaultPolicy();
            breakSpec.accept((ObjectNode) policy.get("spec"));
            return CLUSTER_POLICY.validate(policy);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ObjectNode defaultPolicy() throws Exception {
        return (ObjectNode)
                CrdJsonSchema.YAML.readTree(
                        ModuleFiles.SAMPLES.resolve("clusterpolicy-default.yaml").toFile());
    }

    private static ObjectNode driver(ObjectNode spec) {
        return (ObjectNode) spec.get("driver");
    }

    private static ObjectNode upgradePolicy(ObjectNode spec) {
        return (ObjectNode) driver(spec).get("upgradePolicy");
    }
}
