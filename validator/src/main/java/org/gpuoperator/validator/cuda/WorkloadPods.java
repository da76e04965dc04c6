package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;

/** The validator's workload pods (cuda and plugin), built from settings alone. Pure. */
public final class WorkloadPods {

    public static final String GPU_RESOURCE = "nvidia.com/gpu";

    /**
     * @param name pod name
     * @param nodeName runs here (no scheduler)
     * @param runtimeClass the NVIDIA runtime class
     * @param image the validator's own image
     * @param args arguments to the image's entrypoint ({@code workload cuda})
     * @param gpuResource the resource to request one of, or null to request none and see every GPU
     *     through {@code NVIDIA_VISIBLE_DEVICES=all}
     */
    public record Spec(
            String name,
            String namespace,
            String nodeName,
            String runtimeClass,
            String image,
            List<String> args,
            String app,
            String gpuResource) {}

    private WorkloadPods() {}

    public static Pod pod(Spec s) {
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(s.name())
                        .withNamespace(s.namespace())
                        .addToLabels("app", s.app())
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(s.nodeName())
                        .withRuntimeClassName(s.runtimeClass())
                        .withRestartPolicy("Never")
                        // runs on a GPU node that is tainted until this very check passes
                        .addNewToleration()
                        .withOperator("Exists")
                        .endToleration()
                        .addNewContainer()
                        .withName(s.app())
                        .withImage(s.image())
                        .withImagePullPolicy("IfNotPresent")
                        .withArgs(s.args())
                        .endContainer()
                        .endSpec();
        if (s.gpuResource() == null) {
            b.editSpec()
                    .editFirstContainer()
                    .addNewEnv()
                    .withName("NVIDIA_VISIBLE_DEVICES")
                    .withValue("all")
                    .endEnv()
                    .endContainer()
                    .endSpec();
        } else {
            b.editSpec()
                    .editFirstContainer()
                    .withNewResources()
                    .addToLimits(s.gpuResource(), new Quantity("1"))
                    .endResources()
                    .endContainer()
                    .endSpec();
        }
        return b.build();
    }
}
