package org.gpuoperator.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.gpuoperator.api.common.LenientEnumDeserializer;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.State;
import org.junit.jupiter.api.Test;

/**
 * An enum value this version does not know (stored before a CRD upgrade, or on a server that does
 * not enforce the schema) must not be a read error: that would stop the controller's informer. It
 * is kept as written and reported.
 */
class UnknownEnumValueTest {

    private static final String POLICY =
            """
      {"apiVersion":"nvidia.com/v1","kind":"ClusterPolicy","metadata":{"name":"p"},
       "spec":{"mig":{"strategy":"auto"},
               "driver":{"enabled":true,"imagePullPolicy":"Sometimes","version":"550.1"}},
       "status":{"state":"upgrading"}}
      """;

    private final ObjectMapper mapper = new ObjectMapper();
    private final KubernetesSerialization fabric8 = new KubernetesSerialization();

    @Test
    void unknownValuesAreKeptAsWrittenAndTheRestIsRead() throws Exception {
        ClusterPolicy policy = mapper.readValue(POLICY, ClusterPolicy.class);
        assertThat(policy.getSpec().getMig().getStrategy()).isNull();
        assertThat(policy.getSpec().getDriver().getVersion()).isEqualTo("550.1");
        assertThat(policy.getSpec().getDriver().getEnabled()).isTrue();
        assertThat(policy.getStatus().getState()).isNull();
        // the spec is written back exactly as it was read: nothing the user wrote is lost
        assertThat(mapper.readTree(mapper.writeValueAsString(policy)).get("spec"))
                .isEqualTo(mapper.readTree(POLICY).get("spec"));
    }

    @Test
    void theValidatorNamesEachFieldAndTheAllowedValues() throws Exception {
        ClusterPolicy policy = mapper.readValue(POLICY, ClusterPolicy.class);
        assertThat(ClusterPolicyValidator.validate(policy.getSpec()))
                .filteredOn(ValidationProblem::isError)
                .extracting(ValidationProblem::toString)
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .startsWith(
                                                "ERROR spec.mig.strategy: unknown value \"auto\"; expected one of none, single, mixed"))
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .startsWith(
                                                "ERROR spec.driver.imagePullPolicy: unknown value \"Sometimes\"; expected one of Always, IfNotPresent,"
                                                        + " Never"));
    }

    @Test
    void readingFromATreeAsTheInformerDoesWorksTheSame() throws Exception {
        JsonNode tree = mapper.readTree(POLICY);
        ClusterPolicy viaTree = mapper.treeToValue(tree, ClusterPolicy.class);
        assertThat(viaTree.getSpec().getMig().getAdditionalProperties())
                .containsEntry("strategy", "auto");
        ClusterPolicy viaFabric8 = fabric8.unmarshal(POLICY, ClusterPolicy.class);
        assertThat(viaFabric8.getSpec().getMig().getUnreadableFields()).containsExactly("strategy");
        assertThat(
                        fabric8.convertValue(tree, ClusterPolicy.class)
                                .getSpec()
                                .getDriver()
                                .getUnreadableFields())
                .containsExactly("imagePullPolicy");
    }

    @Test
    void knownValuesReadAsBefore() throws Exception {
        ClusterPolicy policy =
                mapper.readValue(
                        POLICY.replace("\"auto\"", "\"mixed\"")
                                .replace("\"upgrading\"", "\"ready\""),
                        ClusterPolicy.class);
        assertThat(policy.getSpec().getMig().getStrategy()).hasToString("MIXED");
        assertThat(policy.getSpec().getMig().getUnreadableFields()).isEmpty();
        assertThat(policy.getStatus().getState()).isEqualTo(State.READY);
    }

    @Test
    void aStrictReaderStillFailsWithTheTypeNamed() {
        assertThatThrownBy(
                        () ->
                                mapper.readerFor(ClusterPolicy.class)
                                        .withAttribute(LenientEnumDeserializer.STRICT, Boolean.TRUE)
                                        .readValue(POLICY))
                .isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("auto");
    }
}
