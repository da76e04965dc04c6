package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The Prometheus Operator's {@code monitoring.coreos.com/v1} ServiceMonitor, untyped below its
 * metadata: this operator renders one and owns no part of its schema. A class of its own so that
 * the applier can address the kind.
 */
@Group(PrometheusOperatorObject.GROUP)
@Version("v1")
@Kind("ServiceMonitor")
@Plural("servicemonitors")
public final class ServiceMonitor extends GenericKubernetesResource
        implements Namespaced, PrometheusOperatorObject {

    public ServiceMonitor() {
        setApiVersion(GROUP + "/v1");
        setKind("ServiceMonitor");
    }

    /**
     * A ServiceMonitor of the Services in {@code meta}'s namespace that carry {@code selector}: one
     * endpoint, their port {@code port} at {@code /metrics}, with the policy section's interval,
     * timeout, honorLabels and relabelings, and its additionalLabels on the object. Pure.
     *
     * @param jobLabel the Service label whose value names the job (null: none set)
     */
    static ServiceMonitor of(
            ObjectMeta meta,
            Map<String, String> selector,
            String port,
            String jobLabel,
            PolicySettings.ExporterMonitor monitor) {
        meta.getLabels().putAll(monitor.additionalLabels());
        Map<String, Object> endpoint = new LinkedHashMap<>();
        endpoint.put("port", port);
        endpoint.put("path", "/metrics");
        if (monitor.interval() != null) {
            endpoint.put("interval", monitor.interval());
        }
        if (monitor.scrapeTimeout() != null) {
            endpoint.put("scrapeTimeout", monitor.scrapeTimeout());
        }
        endpoint.put("honorLabels", monitor.honorLabels());
        if (!monitor.relabelings().isEmpty()) {
            endpoint.put("relabelings", monitor.relabelings());
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        if (jobLabel != null) {
            spec.put("jobLabel", jobLabel);
        }
        spec.put("selector", Map.of("matchLabels", Map.copyOf(selector)));
        spec.put("namespaceSelector", Map.of("matchNames", List.of(meta.getNamespace())));
        spec.put("endpoints", List.of(endpoint));
        ServiceMonitor sm = new ServiceMonitor();
        sm.setMetadata(meta);
        sm.setAdditionalProperty("spec", spec);
        return sm;
    }

    /** The operator's ({@value OperatorMonitor#NAME}) section, or else the exporter's. */
    @Override
    public String policyField() {
        return OperatorMonitor.NAME.equals(getMetadata().getName())
                ? OperatorMonitor.POLICY_FIELD
                : "spec.dcgmExporter.serviceMonitor.enabled";
    }
}
