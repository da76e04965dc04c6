package org.gpuoperator.controller.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * YAML as {@code kubectl get -o yaml} writes it: plain scalars where YAML allows, quotes only where
 * a string would otherwise read as another type ({@code "true"}, {@code "1"}, {@code "null"}) or
 * does not parse plain; one document per object, starting with {@code ---}.
 */
final class KubectlYaml {

    private static final ObjectMapper YAML =
            new ObjectMapper(
                    YAMLFactory.builder()
                            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                            .build());

    private KubectlYaml() {}

    /** One Kubernetes object: its JSON form (fabric8's serializers) written as YAML. */
    static String of(Object object) {
        JsonNode tree = Serialization.jsonMapper().valueToTree(object);
        try {
            return YAML.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write YAML: " + e.getMessage(), e);
        }
    }
}
