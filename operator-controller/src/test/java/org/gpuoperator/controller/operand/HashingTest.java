package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HashingTest {

    @Test
    void aMapsEntryOrderDoesNotChangeTheHash() {
        // Map.copyOf iterates in an order that differs from one JVM to the next: a restarted
        // controller saw another template hash for the same policy and rolled every operand
        Map<String, String> one = new LinkedHashMap<>();
        one.put("helm.sh/chart", "gpu-operator-v26.7.0");
        one.put("app.kubernetes.io/managed-by", "gpu-operator");
        Map<String, String> other = new LinkedHashMap<>();
        other.put("app.kubernetes.io/managed-by", "gpu-operator");
        other.put("helm.sh/chart", "gpu-operator-v26.7.0");

        assertThat(Hashing.of(List.of(new ObjectMetaBuilder().withLabels(one).build())))
                .isEqualTo(Hashing.of(List.of(new ObjectMetaBuilder().withLabels(other).build())));
        assertThat(Hashing.of(Map.of("a", "1")))
                .as("content still counts")
                .isNotEqualTo(Hashing.of(Map.of("a", "2")));
    }

    @Test
    void theHashedJsonHasMapKeysInOrder() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("b", "2");
        m.put("a", "1");
        assertThat(Hashing.canonicalJson(m)).isEqualTo("{\"a\":\"1\",\"b\":\"2\"}");
    }
}
