package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The Prometheus Operator's {@code monitoring.coreos.com/v1} ServiceMonitor, untyped below its
 * metadata: this operator renders one and owns no part of its schema. A class of its own so that
 * the applier can address the kind.
 */
@Group(ServiceMonitor.GROUP)
@Version("v1")
@Kind("ServiceMonitor")
@Plural("servicemonitors")
public final class ServiceMonitor extends GenericKubernetesResource implements Namespaced {

    public static final String GROUP = "monitoring.coreos.com";

    public ServiceMonitor() {
        setApiVersion(GROUP + "/v1");
        setKind("ServiceMonitor");
    }
}
