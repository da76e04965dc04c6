package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.OperatorMetricsSpec;
import org.gpuoperator.api.v1.OperatorSpec;
import org.gpuoperator.api.v1.ServiceMonitorConfig;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.reconcile.DesiredState;
import org.junit.jupiter.api.Test;

/**
 * spec.operator.metrics.serviceMonitor: the operator's own ServiceMonitor, as upstream's
 * state-operator-metrics renders it, selecting the Service that deploy/operator.yaml installs, and
 * the PrometheusRule of the alert rules.
 */
class OperatorMonitorTest {

    private static final PolicySettings.ExporterMonitor ON =
            new PolicySettings.ExporterMonitor(
                    true,
                    "30s",
                    "10s",
                    true,
                    Map.of("release", "kube-prometheus-stack"),
                    List.of(
                            Map.of(
                                    "action",
                                    "replace",
                                    "sourceLabels",
                                    List.of("__meta_kubernetes_pod_node_name"),
                                    "targetLabel",
                                    "instance")));

    private static PolicySettings policy(PolicySettings.ExporterMonitor m) {
        return TestPolicies.allEnabled().toBuilder().operatorMonitor(m).build();
    }

    @Test
    void offByDefaultItIsNotRenderedAndIsDeleted() {
        PolicySettings off = TestPolicies.allEnabled();
        assertThat(off.operatorMonitor().enabled()).isFalse();
        assertThat(OperatorMonitor.render(off, "gpu-operator")).isEmpty();
        List<ObjectRef> both =
                List.of(
                        new ObjectRef(ServiceMonitor.class, "gpu-operator", "gpu-operator"),
                        new ObjectRef(PrometheusRule.class, "gpu-operator", "gpu-operator-rules"));
        assertThat(OperatorMonitor.unwanted(off, "gpu-operator")).isEqualTo(both);
        DesiredState desired = DesiredState.of(new OperandModels(Map.of()), off, "gpu-operator");
        assertThat(desired.toApply())
                .noneMatch(o -> o.getMetadata().getName().equals("gpu-operator"))
                .noneMatch(PrometheusOperatorObject.class::isInstance);
        assertThat(desired.toDelete()).containsAll(both);
    }

    @Test
    @SuppressWarnings("unchecked")
    void enabledItCarriesThePolicysScrapeSettingsAsUpstreams() {
        List<HasMetadata> objects = OperatorMonitor.render(policy(ON), "gpu-operator");
        assertThat(objects).hasSize(2);
        ServiceMonitor sm = (ServiceMonitor) objects.getFirst();
        assertThat(sm.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(sm.getMetadata().getName()).isEqualTo("gpu-operator");
        assertThat(sm.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        assertThat(sm.getMetadata().getLabels())
                .containsEntry("app", "gpu-operator")
                .containsEntry("release", "kube-prometheus-stack");
        Map<String, Object> spec = (Map<String, Object>) sm.getAdditionalProperties().get("spec");
        assertThat(spec).containsEntry("jobLabel", "operator");
        assertThat(spec)
                .containsEntry("namespaceSelector", Map.of("matchNames", List.of("gpu-operator")));
        Map<String, Object> endpoint =
                ((List<Map<String, Object>>) spec.get("endpoints")).getFirst();
        assertThat(endpoint)
                .containsEntry("port", "metrics")
                .containsEntry("path", "/metrics")
                .containsEntry("interval", "30s")
                .containsEntry("scrapeTimeout", "10s")
                .containsEntry("honorLabels", true)
                .containsEntry("relabelings", ON.relabelings());
        assertThat(OperatorMonitor.unwanted(policy(ON), "gpu-operator")).isEmpty();
        DesiredState desired =
                DesiredState.of(new OperandModels(Map.of()), policy(ON), "gpu-operator");
        assertThat(desired.toApply()).contains(sm);
        assertThat(desired.toDelete())
                .doesNotContain(
                        new ObjectRef(ServiceMonitor.class, "gpu-operator", "gpu-operator"));
        assertThat(sm.policyField()).isEqualTo("spec.operator.metrics.serviceMonitor.enabled");
        assertThat(
                        DcgmExporterModel.serviceMonitor(
                                        "gpu-operator", policy(ON).operatorMonitor())
                                .policyField())
                .isEqualTo("spec.dcgmExporter.serviceMonitor.enabled");
    }

    /**
     * With the ServiceMonitor, the alert rules: deploy/prometheus/gpu-operator-rules.yaml's groups
     * (bundled by the build), named and labelled as the chart's PrometheusRule.
     */
    @Test
    @SuppressWarnings("unchecked")
    void enabledItCarriesTheAlertRulesFileAsAPrometheusRule() throws Exception {
        List<HasMetadata> objects = OperatorMonitor.render(policy(ON), "gpu-operator");
        PrometheusRule rule = (PrometheusRule) objects.get(1);
        assertThat(rule.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(rule.getKind()).isEqualTo("PrometheusRule");
        assertThat(rule.getMetadata().getName()).isEqualTo("gpu-operator-rules");
        assertThat(rule.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        assertThat(rule.getMetadata().getLabels())
                .containsEntry("app", "gpu-operator")
                .containsEntry("release", "kube-prometheus-stack");
        Map<String, Object> file =
                new ObjectMapper(new YAMLFactory())
                        .readValue(
                                Path.of("../deploy/prometheus/gpu-operator-rules.yaml").toFile(),
                                Map.class);
        Map<String, Object> spec = (Map<String, Object>) rule.getAdditionalProperties().get("spec");
        assertThat(spec).containsOnlyKeys("groups");
        assertThat(spec.get("groups")).isEqualTo(file.get("groups"));
        assertThat(rule.policyField()).isEqualTo("spec.operator.metrics.serviceMonitor.enabled");
        DesiredState desired =
                DesiredState.of(new OperandModels(Map.of()), policy(ON), "gpu-operator");
        assertThat(desired.toApply()).contains(rule);
        assertThat(desired.toDelete())
                .doesNotContain(
                        new ObjectRef(PrometheusRule.class, "gpu-operator", "gpu-operator-rules"));
    }

    @Test
    void withoutIntervalOrRelabelingsTheEndpointLeavesThemToPrometheus() {
        ServiceMonitor sm =
                (ServiceMonitor)
                        OperatorMonitor.render(
                                        policy(
                                                new PolicySettings.ExporterMonitor(
                                                        true, null, null, false, null, null)),
                                        "ns")
                                .getFirst();
        @SuppressWarnings("unchecked")
        Map<String, Object> endpoint =
                ((List<Map<String, Object>>)
                                ((Map<String, Object>) sm.getAdditionalProperties().get("spec"))
                                        .get("endpoints"))
                        .getFirst();
        assertThat(endpoint)
                .containsOnlyKeys("port", "path", "honorLabels")
                .containsEntry("honorLabels", false);
    }

    @Test
    void theSpecSectionIsReadOnlyWhenEnabled() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        OperatorSpec operator = new OperatorSpec();
        OperatorMetricsSpec metrics = new OperatorMetricsSpec();
        ServiceMonitorConfig config = new ServiceMonitorConfig();
        config.setInterval("15s");
        config.setHonorLabels(true);
        config.setAdditionalLabels(Map.of("release", "prom"));
        metrics.setServiceMonitor(config);
        operator.setMetrics(metrics);
        spec.setOperator(operator);
        assertThat(ClusterPolicySettings.from(spec).operatorMonitor().enabled()).isFalse();
        config.setEnabled(true);
        PolicySettings.ExporterMonitor read = ClusterPolicySettings.from(spec).operatorMonitor();
        assertThat(read.enabled()).isTrue();
        assertThat(read.interval()).isEqualTo("15s");
        assertThat(read.honorLabels()).isTrue();
        assertThat(read.additionalLabels()).containsEntry("release", "prom");
    }

    /** The selector and port name find the Service that deploy/operator.yaml installs. */
    @Test
    @SuppressWarnings("unchecked")
    void itSelectsTheOperatorsServiceOfTheInstallManifest() throws Exception {
        JsonNode service = null;
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (YAMLParser parser =
                new YAMLFactory().createParser(Path.of("../deploy/operator.yaml").toFile())) {
            List<JsonNode> docs = new ArrayList<>();
            yaml.readValues(parser, JsonNode.class).forEachRemaining(docs::add);
            for (JsonNode d : docs) {
                if ("Service".equals(d.path("kind").asText())
                        && "gpu-operator".equals(d.path("metadata").path("name").asText())) {
                    service = d;
                }
            }
        }
        assertThat(service).as("Service gpu-operator in deploy/operator.yaml").isNotNull();
        ServiceMonitor sm = (ServiceMonitor) OperatorMonitor.render(policy(ON), "x").getFirst();
        Map<String, Object> spec = (Map<String, Object>) sm.getAdditionalProperties().get("spec");
        Map<String, String> matchLabels =
                (Map<String, String>)
                        ((Map<String, Object>) spec.get("selector")).get("matchLabels");
        for (Map.Entry<String, String> e : matchLabels.entrySet()) {
            assertThat(service.path("metadata").path("labels").path(e.getKey()).asText())
                    .as("Service label %s", e.getKey())
                    .isEqualTo(e.getValue());
        }
        List<String> ports = new ArrayList<>();
        service.path("spec").path("ports").forEach(p -> ports.add(p.path("name").asText()));
        String port =
                (String) ((List<Map<String, Object>>) spec.get("endpoints")).getFirst().get("port");
        assertThat(ports).contains(port);
    }
}
