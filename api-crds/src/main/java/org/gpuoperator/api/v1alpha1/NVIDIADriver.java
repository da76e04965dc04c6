package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A driver configuration for a group of GPU nodes ({@code nvidia.com/v1alpha1}, cluster-scoped),
 * for clusters whose nodes need different drivers. In use only when the ClusterPolicy sets {@code
 * driver.useNvidiaDriverCRD=true}.
 */
@Group(NVIDIADriver.GROUP)
@Version(NVIDIADriver.VERSION)
@Kind(NVIDIADriver.KIND)
@Plural(NVIDIADriver.PLURAL)
@Singular(NVIDIADriver.SINGULAR)
@ShortNames({"nvd", "nvdriver", "nvdrivers"})
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NVIDIADriver extends CustomResource<NVIDIADriverSpec, NVIDIADriverStatus> {
    public static final String GROUP = "nvidia.com";
    public static final String VERSION = "v1alpha1";
    public static final String KIND = "NVIDIADriver";
    public static final String PLURAL = "nvidiadrivers";
    public static final String SINGULAR = "nvidiadriver";
    public static final String CRD_NAME = PLURAL + "." + GROUP;

    /** Condition reason: the nodeSelector of this driver overlaps another NVIDIADriver's. */
    public static final String REASON_CONFLICTING_NODE_SELECTOR = "ConflictingNodeSelector";
}
