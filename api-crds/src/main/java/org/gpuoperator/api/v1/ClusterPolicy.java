package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The cluster-wide GPU policy ({@code nvidia.com/v1}, cluster-scoped): one resource, usually named
 * {@code cluster-policy}, describes how every GPU node is made ready. Written for the upstream
 * NVIDIA GPU Operator, it applies unchanged; fields this project does not implement are reported in
 * {@code status.warnings}.
 */
@Group(ClusterPolicy.GROUP)
@Version(ClusterPolicy.VERSION)
@Kind(ClusterPolicy.KIND)
@Plural(ClusterPolicy.PLURAL)
@Singular(ClusterPolicy.SINGULAR)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClusterPolicy extends CustomResource<ClusterPolicySpec, ClusterPolicyStatus> {
    public static final String GROUP = "nvidia.com";
    public static final String VERSION = "v1";
    public static final String KIND = "ClusterPolicy";
    public static final String PLURAL = "clusterpolicies";
    public static final String SINGULAR = "clusterpolicy";
    public static final String CRD_NAME = PLURAL + "." + GROUP;

    /** The name the Helm chart and the samples give the one ClusterPolicy of a cluster. */
    public static final String DEFAULT_NAME = "cluster-policy";
}
