package org.gpuoperator.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.nodes.PluginConfigReport;
import org.junit.jupiter.api.Test;

/** The device plugin's config reports (node annotations) summed into the ClusterPolicy status. */
class PluginConfigStatusTest {

    private static NodeSummary node(String name, Map<String, String> annotations) {
        return new NodeSummary(
                name,
                false,
                true,
                null,
                Set.of(),
                Set.of(),
                Set.of(),
                true,
                null,
                null,
                List.of(),
                PluginConfigReport.of(annotations));
    }

    private static ClusterPolicyStatus status(ClusterRollup rollup) {
        return StatusCalculator.compute(
                new StatusCalculator.Observation(
                        1, "gpu-operator", TestPolicies.allEnabled(), rollup),
                null,
                "t");
    }

    @Test
    void eachConfigInForceIsCountedAndEachRefusalNamesItsNode() {
        ClusterRollup rollup = new ClusterRollup();
        rollup.put(node("n1", Map.of(PluginConfigReport.APPLIED_ANNOTATION, "ts-4")));
        rollup.put(node("n2", Map.of(PluginConfigReport.APPLIED_ANNOTATION, "ts-4")));
        rollup.put(
                node(
                        "n3",
                        Map.of(
                                PluginConfigReport.APPLIED_ANNOTATION,
                                "ts-10",
                                PluginConfigReport.ERROR_ANNOTATION,
                                "config 'nope' (node label nvidia.com/device-plugin.config) is not a"
                                        + " key of the config ConfigMap")));
        rollup.put(node("n4", Map.of("other", "x")));
        ClusterPolicyStatus s = status(rollup);
        assertThat(s.getDevicePluginConfigs())
                .containsExactly(Map.entry("ts-10", 1), Map.entry("ts-4", 2));
        assertThat(s.getDevicePluginConfigErrors())
                .containsExactly(
                        "n3: config 'nope' (node label nvidia.com/device-plugin.config) is not a"
                                + " key of the config ConfigMap");

        // the node switches back to a known config, another leaves: the figures follow
        rollup.put(node("n3", Map.of(PluginConfigReport.APPLIED_ANNOTATION, "ts-4")));
        rollup.remove("n1");
        s = status(rollup);
        assertThat(s.getDevicePluginConfigs()).containsExactly(Map.entry("ts-4", 2));
        assertThat(s.getDevicePluginConfigErrors()).isNull();
    }

    @Test
    void withoutReportsTheFieldsAreAbsentAndTheErrorsAreCapped() {
        assertThat(status(new ClusterRollup()).getDevicePluginConfigs()).isNull();
        List<NodeSummary> nodes = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            nodes.add(
                    node(
                            String.format("n%02d", i),
                            Map.of(PluginConfigReport.ERROR_ANNOTATION, "bad")));
        }
        ClusterPolicyStatus s = status(ClusterRollup.of(nodes));
        assertThat(s.getDevicePluginConfigs()).isNull();
        assertThat(s.getDevicePluginConfigErrors()).hasSize(20).startsWith("n00: bad");
    }
}
