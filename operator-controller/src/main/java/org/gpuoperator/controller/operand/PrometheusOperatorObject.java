package org.gpuoperator.controller.operand;

/**
 * An object of a Prometheus Operator kind ({@value #GROUP}), which a cluster serves only where
 * those CRDs are installed: the reconcile skips one whose kind is missing with a status warning
 * naming {@link #policyField()}, where any other kind's 404 is an error. Not a HasMetadata: its
 * Jackson annotation would take precedence over GenericKubernetesResource's and read these kinds
 * back as untyped objects.
 */
public sealed interface PrometheusOperatorObject permits ServiceMonitor, PrometheusRule {

    String GROUP = "monitoring.coreos.com";

    /** The ClusterPolicy field that asks for this object. */
    String policyField();
}
