package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubectlYamlTest {

    private static JsonNode json(Object o) {
        return Serialization.jsonMapper().valueToTree(o);
    }

    private final RenderedPolicy rendered = RenderedPolicy.defaults();

    @Test
    void renderQuotesOnlyWhatYamlWouldReadAsAnotherType() {
        String yaml = rendered.yaml();

        // plain scalars, as kubectl get -o yaml
        assertThat(yaml)
                .contains("\nkind: DaemonSet\n")
                .contains("apiVersion: apps/v1\n")
                .contains("  name: nvidia-driver-daemonset\n")
                .contains("app.kubernetes.io/component: nvidia-driver\n")
                .doesNotContain("kind: \"DaemonSet\"")
                .doesNotContain("name: \"nvidia-driver-daemonset\"");
        // a string that reads as a boolean or a number keeps its quotes
        assertThat(yaml).contains("nvidia.com/gpu.deploy.driver: \"true\"");
        // numbers and booleans stay what they are
        assertThat(yaml).contains("containerPort: 9400").contains("privileged: true");
    }

    @Test
    void everyDocumentReadsBackAsTheObjectRendered() {
        List<String> docs =
                Arrays.stream(rendered.yaml().split("(?m)^---$"))
                        .map(String::strip)
                        .filter(d -> !d.isEmpty() && !d.startsWith("#"))
                        .toList();
        List<HasMetadata> objects = rendered.desired().toApply();

        assertThat(docs).hasSameSizeAs(objects);
        for (int i = 0; i < docs.size(); i++) {
            Object back = Serialization.unmarshal(docs.get(i));
            // as JSON: fabric8 reads an absent list back as an empty one
            assertThat(json(back))
                    .as(objects.get(i).getMetadata().getName())
                    .isEqualTo(json(objects.get(i)));
        }
    }
}
