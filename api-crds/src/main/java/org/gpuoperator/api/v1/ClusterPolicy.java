package org.gpuoperator.api.v1;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Version;

/** The cluster-wide GPU policy (placeholder until the API lands). */
@Group("nvidia.com")
@Version("v1")
public class ClusterPolicy extends CustomResource<java.util.Map<String, Object>, java.util.Map<String, Object>> {}
