package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.metrics.AlertRules;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The operator's own monitoring objects ({@code spec.operator.metrics.serviceMonitor}). Its
 * ServiceMonitor, as upstream's state-operator-metrics renders it: {@value #NAME}, label {@code
 * app: gpu-operator}, {@code jobLabel: operator}, one endpoint at {@code /metrics} with the
 * policy's interval, timeout, honorLabels, relabelings and additionalLabels. It selects the Service
 * {@code gpu-operator} that deploy/operator.yaml and the chart install (label {@value
 * #SERVICE_LABEL}{@code =}{@value #NAME}, port {@value #PORT}, the controller's {@code
 * --metrics-bind-address}). With it, the PrometheusRule {@value #RULES_NAME} of the alert rules on
 * those metrics ({@link AlertRules}), named and labelled as the chart's. Upstream renders its
 * ServiceMonitor whenever the Prometheus Operator's CRDs exist and ignores {@code enabled: false},
 * and its PrometheusRule in the same state, with no switch of its own, on OpenShift only; here both
 * are rendered only with {@code enabled: true}, as the exporter's ServiceMonitor. Pure.
 */
public final class OperatorMonitor {

    /** The ServiceMonitor's name, upstream's, and the operator Service's. */
    public static final String NAME = "gpu-operator";

    /** The PrometheusRule's name, the chart's (templates/prometheusrule.yaml). */
    public static final String RULES_NAME = "gpu-operator-rules";

    /** The field that asks for both objects. */
    static final String POLICY_FIELD = "spec.operator.metrics.serviceMonitor.enabled";

    /** The operator Service's label the monitor selects on (deploy/operator.yaml). */
    static final String SERVICE_LABEL = "app.kubernetes.io/name";

    /** The operator Service's metrics port name (deploy/operator.yaml). */
    static final String PORT = "metrics";

    private OperatorMonitor() {}

    /** The ServiceMonitor and the PrometheusRule when the policy enables them, else nothing. */
    public static List<HasMetadata> render(PolicySettings policy, String namespace) {
        PolicySettings.ExporterMonitor monitor = policy.operatorMonitor();
        if (!monitor.enabled()) {
            return List.of();
        }
        ServiceMonitor sm =
                ServiceMonitor.of(
                        meta(NAME, namespace),
                        Map.of(SERVICE_LABEL, NAME),
                        PORT,
                        "operator",
                        monitor);
        ObjectMeta rulesMeta = meta(RULES_NAME, namespace);
        // the labels a Prometheus selects rules by are those it selects monitors by
        rulesMeta.getLabels().putAll(monitor.additionalLabels());
        return List.of(sm, PrometheusRule.of(rulesMeta, AlertRules.groups()));
    }

    /** The objects to delete when the policy does not enable them. */
    public static List<ObjectRef> unwanted(PolicySettings policy, String namespace) {
        return policy.operatorMonitor().enabled()
                ? List.of()
                : List.of(
                        new ObjectRef(ServiceMonitor.class, namespace, NAME),
                        new ObjectRef(PrometheusRule.class, namespace, RULES_NAME));
    }

    private static ObjectMeta meta(String name, String namespace) {
        ObjectMeta meta = OperandObjects.meta(name, namespace, NAME);
        meta.getLabels().put(PodContract.APP_LABEL, NAME);
        return meta;
    }
}
