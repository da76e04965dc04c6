package org.gpuoperator.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** YAML in, typed object, YAML out: nothing is lost or invented, unknown fields included. */
class RoundTripTest {
    // the serialization the fabric8 client (and so the controller) uses
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    static List<Path> examples() {
        return ModuleFiles.allExamples();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void roundTripsUnchanged(Path file) throws Exception {
        String yamlIn = ModuleFiles.read(file);
        JsonNode in = CrdJsonSchema.YAML.readTree(yamlIn);
        Class<? extends CustomResource<?, ?>> type =
                in.path("kind").asText().equals(NVIDIADriver.KIND)
                        ? NVIDIADriver.class
                        : ClusterPolicy.class;

        CustomResource<?, ?> resource = SERIALIZATION.unmarshal(yamlIn, type);
        JsonNode out = CrdJsonSchema.YAML.readTree(SERIALIZATION.asYaml(resource));

        assertThat(out).as(file + " after a round trip").isEqualTo(in);
    }

    @Test
    void examplesExist() {
        assertThat(examples())
                .extracting(p -> p.getFileName().toString())
                .contains(
                        "clusterpolicy-default.yaml",
                        "clusterpolicy-preinstalled-driver.yaml",
                        "clusterpolicy-simulated.yaml",
                        "upstream-full.yaml",
                        "nvidiadriver-upstream.yaml");
    }

    @Test
    void unknownFieldsAreKeptInTheTypedObject() {
        ClusterPolicy policy =
                SERIALIZATION.unmarshal(
                        ModuleFiles.read(ModuleFiles.TEST_POLICIES.resolve("upstream-full.yaml")),
                        ClusterPolicy.class);

        assertThat(policy.getSpec().getAdditionalProperties()).containsKey("gpuDirectRdmaFuture");
        assertThat(policy.getSpec().getOperator().getAdditionalProperties()).containsKey("logging");
        assertThat(policy.getSpec().getDriver().getAdditionalProperties())
                .containsKey("nvidiaDriverCRD");
        // known fields land in typed fields, not in the unknown map
        assertThat(policy.getSpec().getDriver().getVersion()).isEqualTo("595.91.07");
        assertThat(policy.getSpec().getDriver().getAdditionalProperties())
                .doesNotContainKey("version");
    }
}
