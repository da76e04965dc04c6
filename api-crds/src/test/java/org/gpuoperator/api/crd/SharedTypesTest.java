package org.gpuoperator.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.gpuoperator.api.common.ContainerSpec;
import org.gpuoperator.api.common.DriverSettings;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.common.LicensingSpec;
import org.gpuoperator.api.common.PodSettings;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.junit.jupiter.api.Test;

/**
 * ClusterPolicy {@code spec.driver} / {@code spec.daemonsets} and the NVIDIADriver spec declare
 * their common fields once ({@link DriverSettings}, {@link PodSettings}, {@link ContainerSpec},
 * {@link LicensingSpec}): the fields read into their types in both, and each has one schema in both
 * CRDs, the description apart where the NVIDIADriver re-describes it.
 */
class SharedTypesTest {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private static final String DRIVER_FIELDS =
            """
            kernelModuleType: open
            startupProbe: {initialDelaySeconds: 61}
            livenessProbe: {periodSeconds: 11}
            readinessProbe: {failureThreshold: 3}
            rdma: {enabled: true}
            upgradePolicy: {autoUpgrade: true}
            manager: {image: k8s-driver-manager}
            secretEnv: driver-env
            """;

    private static final String POD_FIELDS =
            """
            labels: {team: a}
            annotations: {note: b}
            tolerations: [{key: nvidia.com/gpu, operator: Exists}]
            priorityClassName: high
            podSecurityContext: {runAsUser: 0}
            """;

    private static final String CONTAINER_FIELDS =
            """
            resources: {limits: {cpu: '2'}}
            args: [--x]
            env: [{name: A, value: b}]
            hostNetwork: true
            """;

    @Test
    void anNvidiaDriverReadsTheSharedFieldsIntoTheirTypes() {
        NVIDIADriverSpec spec =
                SERIALIZATION.unmarshal(
                        DRIVER_FIELDS + POD_FIELDS + CONTAINER_FIELDS, NVIDIADriverSpec.class);

        assertThat(spec.getAdditionalProperties()).isEmpty();
        assertDriverFields(spec);
        assertPodFields(spec);
        assertThat(spec.getResources().getLimits()).containsEntry("cpu", new Quantity("2"));
        assertThat(spec.getArgs()).containsExactly("--x");
        assertThat(spec.getEnv()).extracting(e -> e.getName()).containsExactly("A");
        assertThat(spec.getHostNetwork()).isTrue();
        assertWrittenBackUnchanged(spec, DRIVER_FIELDS + POD_FIELDS + CONTAINER_FIELDS);
    }

    @Test
    void aClusterPolicyReadsTheSameFieldsIntoDriverAndDaemonsets() {
        DriverSpec driver = SERIALIZATION.unmarshal(DRIVER_FIELDS, DriverSpec.class);
        DaemonsetsSpec daemonsets = SERIALIZATION.unmarshal(POD_FIELDS, DaemonsetsSpec.class);

        assertThat(driver.getAdditionalProperties()).isEmpty();
        assertThat(daemonsets.getAdditionalProperties()).isEmpty();
        assertDriverFields(driver);
        assertPodFields(daemonsets);
        assertWrittenBackUnchanged(driver, DRIVER_FIELDS);
        assertWrittenBackUnchanged(daemonsets, POD_FIELDS);
    }

    @Test
    void eachObjectHoldsItsOwnValues() {
        DriverSpec one = new DriverSpec();
        DriverSpec two = new DriverSpec();
        NVIDIADriverSpec three = new NVIDIADriverSpec();
        one.setSecretEnv("one");
        three.setSecretEnv("three");
        three.setPriorityClassName("three");

        assertThat(one.getSecretEnv()).isEqualTo("one");
        assertThat(two.getSecretEnv()).isNull();
        assertThat(three.getSecretEnv()).isEqualTo("three");
        assertThat(new DaemonsetsSpec().getPriorityClassName()).isNull();
    }

    @Test
    void driverSettingsHaveOneSchemaInBothCrds() throws IOException {
        List<String> fields = jsonNames(DriverSettings.class);
        assertThat(fields).hasSize(8);
        JsonNode policyDriver = clusterPolicySpec().at("/properties/driver/properties");
        JsonNode nvidiaDriver = nvidiaDriverSpec().get("properties");

        for (String field : fields) {
            assertThat(nvidiaDriver.get(field)).as(field).isNotNull();
            assertThat(nvidiaDriver.get(field)).as(field).isEqualTo(policyDriver.get(field));
        }
    }

    @Test
    void licensingFieldsHaveOneSchemaInBothCrds() throws IOException {
        List<String> fields =
                Arrays.stream(LicensingSpec.class.getDeclaredFields())
                        .map(f -> f.getAnnotation(JsonProperty.class))
                        .filter(Objects::nonNull)
                        .map(JsonProperty::value)
                        .toList();
        assertThat(fields).containsExactly("secretName", "nlsEnabled");
        JsonNode policy =
                clusterPolicySpec().at("/properties/driver/properties/licensingConfig/properties");
        JsonNode nvidiaDriver = nvidiaDriverSpec().at("/properties/licensingConfig/properties");

        for (String field : fields) {
            assertThat(nvidiaDriver.get(field)).as(field).isNotNull();
            assertThat(nvidiaDriver.get(field)).as(field).isEqualTo(policy.get(field));
        }
    }

    @Test
    void podAndContainerSettingsHaveOneSchemaInBothCrdsButTheirDescriptions() throws IOException {
        List<String> podFields = jsonNames(PodSettings.class);
        List<String> containerFields = List.of("resources", "args", "env", "hostNetwork");
        assertThat(podFields).hasSize(5);
        JsonNode policy = clusterPolicySpec().get("properties");
        JsonNode nvidiaDriver = nvidiaDriverSpec().get("properties");

        for (String field : podFields) {
            assertSameButDescription(
                    field, policy.at("/daemonsets/properties/" + field), nvidiaDriver.get(field));
        }
        for (String field : containerFields) {
            // toolkit: a ClusterPolicy operand with no field of its own named like these
            assertSameButDescription(
                    field, policy.at("/toolkit/properties/" + field), nvidiaDriver.get(field));
        }
    }

    private static void assertDriverFields(DriverSettings s) {
        assertThat(s.getKernelModuleType()).isEqualTo(KernelModuleType.OPEN);
        assertThat(s.getStartupProbe().getInitialDelaySeconds()).isEqualTo(61);
        assertThat(s.getLivenessProbe().getPeriodSeconds()).isEqualTo(11);
        assertThat(s.getReadinessProbe().getFailureThreshold()).isEqualTo(3);
        assertThat(s.getRdma().getEnabled()).isTrue();
        assertThat(s.getUpgradePolicy().getAutoUpgrade()).isTrue();
        assertThat(s.getManager().getImage()).isEqualTo("k8s-driver-manager");
        assertThat(s.getSecretEnv()).isEqualTo("driver-env");
    }

    private static void assertPodFields(PodSettings s) {
        assertThat(s.getLabels()).isEqualTo(Map.of("team", "a"));
        assertThat(s.getAnnotations()).isEqualTo(Map.of("note", "b"));
        assertThat(s.getTolerations())
                .singleElement()
                .extracting("key")
                .isEqualTo("nvidia.com/gpu");
        assertThat(s.getPriorityClassName()).isEqualTo("high");
        assertThat(s.getPodSecurityContext().getRunAsUser()).isZero();
    }

    /** Written back as read, its properties in alphabetical order (the same JSON every run). */
    private static void assertWrittenBackUnchanged(Object spec, String yaml) {
        JsonNode written = SERIALIZATION.unmarshal(SERIALIZATION.asJson(spec), JsonNode.class);
        assertThat(written).isEqualTo(SERIALIZATION.unmarshal(yaml, JsonNode.class));
        List<String> names = new ArrayList<>();
        written.fieldNames().forEachRemaining(names::add);
        assertThat(names).isSorted();
    }

    private static void assertSameButDescription(String field, JsonNode policy, JsonNode driver) {
        assertThat(policy.isMissingNode()).as(field).isFalse();
        assertThat(driver).as(field).isNotNull();
        ObjectNode a = ((ObjectNode) policy).deepCopy();
        ObjectNode b = ((ObjectNode) driver).deepCopy();
        a.remove("description");
        b.remove("description");
        assertThat(b).as(field).isEqualTo(a);
    }

    /** The JSON names of the properties an interface declares. */
    private static List<String> jsonNames(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .map((Method m) -> m.getAnnotation(JsonProperty.class))
                .filter(Objects::nonNull)
                .map(JsonProperty::value)
                .toList();
    }

    private static JsonNode clusterPolicySpec() throws IOException {
        return crd(ClusterPolicy.CRD_NAME)
                .at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    }

    private static JsonNode nvidiaDriverSpec() throws IOException {
        return crd(NVIDIADriver.CRD_NAME)
                .at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    }

    private static JsonNode crd(String name) throws IOException {
        return CrdJsonSchema.YAML.readTree(
                ModuleFiles.GENERATED_CRDS.resolve(name + "-v1.yml").toFile());
    }
}
