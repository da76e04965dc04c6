package org.gpuoperator.api.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.junit.jupiter.api.Test;

/**
 * The generated CRDs have the names, scope, subresources and sections users of the upstream
 * operator know.
 */
class CrdShapeTest {
    @Test
    void clusterPolicyCrd() throws IOException {
        JsonNode crd = crd(ClusterPolicy.CRD_NAME);
        JsonNode version = crd.at("/spec/versions/0");

        assertThat(crd.at("/spec/group").asText()).isEqualTo("nvidia.com");
        assertThat(crd.at("/spec/names/kind").asText()).isEqualTo("ClusterPolicy");
        assertThat(crd.at("/spec/scope").asText()).isEqualTo("Cluster");
        assertThat(version.at("/name").asText()).isEqualTo("v1");
        assertThat(version.at("/subresources/status").isObject()).isTrue();
        assertThat(version.at("/additionalPrinterColumns"))
                .extracting(c -> c.get("name").asText() + "=" + c.get("jsonPath").asText())
                .containsExactlyInAnyOrder(
                        "Status=.status.state", "Age=.metadata.creationTimestamp");

        JsonNode spec = version.at("/schema/openAPIV3Schema/properties/spec");
        assertThat(names(spec.get("properties")))
                .containsExactlyInAnyOrder(
                        "operator",
                        "daemonsets",
                        "driver",
                        "toolkit",
                        "devicePlugin",
                        "dcgmExporter",
                        "dcgm",
                        "nodeStatusExporter",
                        "gfd",
                        "mig",
                        "migManager",
                        "psp",
                        "psa",
                        "validator",
                        "gds",
                        "gdrcopy",
                        "sandboxWorkloads",
                        "vfioManager",
                        "sandboxDevicePlugin",
                        "vgpuManager",
                        "vgpuDeviceManager",
                        "cdi",
                        "kataManager",
                        "ccManager",
                        "hostPaths",
                        "kataSandboxDevicePlugin",
                        "simulation");
        assertThat(spec.get("required"))
                .extracting(JsonNode::asText)
                .containsExactlyInAnyOrder(
                        "operator",
                        "daemonsets",
                        "driver",
                        "toolkit",
                        "devicePlugin",
                        "dcgmExporter",
                        "dcgm",
                        "nodeStatusExporter",
                        "gfd");
        assertThat(spec.get("x-kubernetes-preserve-unknown-fields").asBoolean()).isTrue();
        assertThat(spec.at("/properties/driver/x-kubernetes-preserve-unknown-fields").asBoolean())
                .isTrue();

        JsonNode status = version.at("/schema/openAPIV3Schema/properties/status/properties");
        assertThat(names(status))
                .contains(
                        "state",
                        "namespace",
                        "conditions",
                        "observedGeneration",
                        "operands",
                        "nodes",
                        "driverVersions",
                        "warnings");
        assertThat(status.at("/state/enum"))
                .extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("ready", "notReady", "ignored", "disabled");
    }

    @Test
    void everyOperandHasTheCommonFields() throws IOException {
        JsonNode sections =
                crd(ClusterPolicy.CRD_NAME)
                        .at("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties");
        for (String operand :
                List.of(
                        "driver",
                        "toolkit",
                        "devicePlugin",
                        "dcgmExporter",
                        "dcgm",
                        "gfd",
                        "migManager",
                        "nodeStatusExporter",
                        "validator",
                        "gds",
                        "gdrcopy",
                        "vfioManager",
                        "sandboxDevicePlugin",
                        "vgpuManager",
                        "vgpuDeviceManager",
                        "kataManager",
                        "ccManager",
                        "kataSandboxDevicePlugin")) {
            assertThat(names(sections.at("/" + operand + "/properties")))
                    .as(operand)
                    .contains(
                            "enabled",
                            "repository",
                            "image",
                            "version",
                            "imagePullPolicy",
                            "imagePullSecrets",
                            "resources",
                            "args",
                            "env");
        }
    }

    @Test
    void nvidiaDriverCrd() throws IOException {
        JsonNode crd = crd(NVIDIADriver.CRD_NAME);

        assertThat(crd.at("/spec/scope").asText()).isEqualTo("Cluster");
        assertThat(crd.at("/spec/versions/0/name").asText()).isEqualTo("v1alpha1");
        assertThat(crd.at("/spec/names/shortNames"))
                .extracting(JsonNode::asText)
                .containsExactly("nvd", "nvdriver", "nvdrivers");
        assertThat(crd.at("/spec/versions/0/subresources/status").isObject()).isTrue();
    }

    private static JsonNode crd(String name) throws IOException {
        return CrdJsonSchema.YAML.readTree(
                ModuleFiles.GENERATED_CRDS.resolve(name + "-v1.yml").toFile());
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
