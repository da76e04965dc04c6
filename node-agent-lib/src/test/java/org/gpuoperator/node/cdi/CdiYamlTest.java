package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiYamlTest {

    @TempDir Path host;

    @Test
    void renderedSpecParsesBackToTheSameSpec() throws Exception {
        CdiSpec spec =
                CdiSpecGenerator.gpuSpec(
                        CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host),
                        CdiFixtures.driver(),
                        CdiFixtures.HOOK);
        String yaml = CdiYaml.render(spec);
        assertThat(CdiYaml.parse(yaml, "nvidia.yaml")).isEqualTo(spec);
        // names YAML would read as numbers are quoted (0, and 1:0 is a YAML 1.1 sexagesimal)
        assertThat(yaml).contains("name: '1:0'");
        assertThat(
                        CdiYaml.render(
                                CdiSpecGenerator.gpuSpec(
                                        CdiFixtures.gpus("a100-40gb-x8", host),
                                        CdiFixtures.driver(),
                                        CdiFixtures.HOOK)))
                .contains("name: '0'");
    }

    @Test
    void readsJsonSpecs() throws Exception {
        String json =
                """
                {"cdiVersion":"0.6.0","kind":"vendor.com/device",
                 "annotations":{"a":"b"},
                 "devices":[{"name":"d0","containerEdits":{"deviceNodes":[{"path":"/dev/d0",
                   "type":"c","major":10,"minor":200}],"env":["X=1"]}}],
                 "containerEdits":{"mounts":[{"hostPath":"/h","containerPath":"/c",
                   "options":["ro"]}],"hooks":[{"hookName":"createContainer","path":"/bin/h",
                   "args":["h","x"],"timeout":5}]}}
                """;
        CdiSpec s = CdiYaml.parse(json, "vendor.json");
        assertThat(s.kind()).isEqualTo("vendor.com/device");
        assertThat(s.annotations()).containsEntry("a", "b");
        assertThat(s.devices().getFirst().containerEdits().deviceNodes().getFirst())
                .isEqualTo(CdiSpec.DeviceNode.charDevice("/dev/d0", 10, 200));
        assertThat(s.containerEdits().hooks().getFirst().timeout()).isEqualTo(5L);
        assertThat(s.containerEdits().mounts().getFirst().options()).containsExactly("ro");
    }

    @Test
    void badSpecsNameTheFileAndTheField() {
        assertThatThrownBy(() -> CdiYaml.parse("cdiVersion: 0.5.0\ndevices: []\n", "x.yaml"))
                .isInstanceOf(CdiException.class)
                .hasMessage("x.yaml: kind: required");
        assertThatThrownBy(
                        () ->
                                CdiYaml.parse(
                                        "cdiVersion: 0.5.0\nkind: a.com/b\ndevices:\n"
                                                + "- name: d\n  containerEdits:\n"
                                                + "    deviceNodes:\n    - major: 1\n",
                                        "y.yaml"))
                .hasMessage("y.yaml: devices[0].containerEdits.deviceNodes[0].path: required");
        assertThatThrownBy(() -> CdiYaml.parse("[1, 2", "z.json"))
                .hasMessageStartingWith("z.json: not YAML or JSON");
    }
}
