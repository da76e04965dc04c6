package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The operator's own ServiceMonitor ({@code spec.operator.metrics.serviceMonitor}), as upstream's
 * state-operator-metrics renders it: {@value #NAME}, label {@code app: gpu-operator}, {@code
 * jobLabel: operator}, one endpoint at {@code /metrics} with the policy's interval, timeout,
 * honorLabels, relabelings and additionalLabels. It selects the Service {@code gpu-operator} that
 * deploy/operator.yaml and the chart install (label {@value #SERVICE_LABEL}{@code =}{@value #NAME},
 * port {@value #PORT}, the controller's {@code --metrics-bind-address}). Upstream renders it
 * whenever the Prometheus Operator's CRDs exist and ignores {@code enabled: false}; here it is
 * rendered only with {@code enabled: true}, as the exporter's. Pure.
 */
public final class OperatorMonitor {

    /** The ServiceMonitor's name, upstream's, and the operator Service's. */
    public static final String NAME = "gpu-operator";

    /** The operator Service's label the monitor selects on (deploy/operator.yaml). */
    static final String SERVICE_LABEL = "app.kubernetes.io/name";

    /** The operator Service's metrics port name (deploy/operator.yaml). */
    static final String PORT = "metrics";

    private OperatorMonitor() {}

    /** The ServiceMonitor when the policy enables it, else nothing. */
    public static List<HasMetadata> render(PolicySettings policy, String namespace) {
        PolicySettings.ExporterMonitor monitor = policy.operatorMonitor();
        if (!monitor.enabled()) {
            return List.of();
        }
        ObjectMeta meta = OperandObjects.meta(NAME, namespace, NAME);
        meta.getLabels().put(PodContract.APP_LABEL, NAME);
        return List.of(
                ServiceMonitor.of(meta, Map.of(SERVICE_LABEL, NAME), PORT, "operator", monitor));
    }

    /** The ServiceMonitor to delete when the policy does not enable it. */
    public static List<ObjectRef> unwanted(PolicySettings policy, String namespace) {
        return policy.operatorMonitor().enabled()
                ? List.of()
                : List.of(new ObjectRef(ServiceMonitor.class, namespace, NAME));
    }
}
