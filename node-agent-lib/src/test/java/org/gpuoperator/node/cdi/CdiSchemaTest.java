package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** The generated specs against the official CDI JSON schema (test resource, see its README). */
class CdiSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonSchema schema;

    @TempDir Path host;

    /** schema.json with defs.json's definitions inlined (its refs point at the sibling file). */
    @BeforeAll
    static void loadSchema() throws Exception {
        ObjectNode s = (ObjectNode) resource("schema.json");
        JsonNode defs = resource("defs.json");
        String text = JSON.writeValueAsString(s).replace("\"defs.json#", "\"#");
        ObjectNode merged = (ObjectNode) JSON.readTree(text);
        merged.set("definitions", defs.get("definitions"));
        schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7).getSchema(merged);
    }

    private static JsonNode resource(String name) throws Exception {
        try (InputStream in = CdiSchemaTest.class.getResourceAsStream("schema/" + name)) {
            return JSON.readTree(in);
        }
    }

    /** The YAML file as written, read back as JSON (what the CDI library validates). */
    private static List<String> validate(String yaml) {
        Map<String, Object> doc = new Yaml().load(yaml);
        return schema.validate(JSON.valueToTree(doc)).stream()
                .map(ValidationMessage::getMessage)
                .toList();
    }

    @Test
    void generatedSpecsAreValid() {
        for (String profile : List.of("h100-80gb-x8", "a100-40gb-x8-mig-mixed")) {
            CdiSpecGenerator.specFiles(
                            CdiFixtures.gpus(profile, host), CdiFixtures.driver(), CdiFixtures.HOOK)
                    .forEach(
                            (file, spec) ->
                                    assertThat(validate(CdiYaml.render(spec)))
                                            .as(profile + " " + file)
                                            .isEmpty());
        }
    }

    @Test
    void aSpecWithEveryKindOfFileDriNodesAndTheirHooksIsValid() {
        List<Gpu> gpus = CdiFixtures.gpus("t4-x1", host);
        CdiSpecGenerator.specFiles(gpus, CdiFixtures.everyKind(gpus), CdiFixtures.HOOK)
                .forEach(
                        (file, spec) ->
                                assertThat(validate(CdiYaml.render(spec))).as(file).isEmpty());
    }

    @Test
    void theSchemaRejectsASpecWithoutKindOrWithAMountWithoutPaths() {
        assertThat(validate("cdiVersion: 0.5.0\ndevices: []\n")).isNotEmpty();
        assertThat(
                        validate(
                                "cdiVersion: 0.5.0\nkind: a.com/b\ndevices:\n- name: x\n"
                                        + "  containerEdits:\n    mounts:\n    - options: [ro]\n"))
                .isNotEmpty();
    }
}
