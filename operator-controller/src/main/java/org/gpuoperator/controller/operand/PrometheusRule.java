package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus Operator's {@code monitoring.coreos.com/v1} PrometheusRule, untyped below its
 * metadata as {@link ServiceMonitor}: the rule groups are Prometheus's own format, passed through.
 */
@Group(PrometheusOperatorObject.GROUP)
@Version("v1")
@Kind("PrometheusRule")
@Plural("prometheusrules")
public final class PrometheusRule extends GenericKubernetesResource
        implements Namespaced, PrometheusOperatorObject {

    public PrometheusRule() {
        setApiVersion(GROUP + "/v1");
        setKind("PrometheusRule");
    }

    /** A PrometheusRule of {@code groups} (Prometheus rule groups). Pure. */
    static PrometheusRule of(ObjectMeta meta, List<Object> groups) {
        PrometheusRule rule = new PrometheusRule();
        rule.setMetadata(meta);
        rule.setAdditionalProperty("spec", Map.of("groups", groups));
        return rule;
    }

    /** Only the operator's rules exist, with its ServiceMonitor ({@link OperatorMonitor}). */
    @Override
    public String policyField() {
        return OperatorMonitor.POLICY_FIELD;
    }
}
