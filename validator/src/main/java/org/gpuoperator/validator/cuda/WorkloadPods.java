package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /**
     * The pod, as the generic resource {@link WorkloadRunner} creates: the same object a typed Pod
     * would be written as, without Jackson building its writers for fabric8's Pod model on the way
     * to the first check (~35 ms of the validator's main thread by async-profiler).
     */
    public static GenericKubernetesResource pod(Spec s) {
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", s.app());
        container.put("image", s.image());
        container.put("imagePullPolicy", "IfNotPresent");
        container.put("args", List.copyOf(s.args()));
        if (s.gpuResource() == null) {
            container.put("env", List.of(Map.of("name", "NVIDIA_VISIBLE_DEVICES", "value", "all")));
        } else {
            container.put("resources", Map.of("limits", Map.of(s.gpuResource(), "1")));
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("nodeName", s.nodeName());
        spec.put("runtimeClassName", s.runtimeClass());
        spec.put("restartPolicy", "Never");
        // runs on a GPU node that is tainted until this very check passes
        spec.put("tolerations", List.of(Map.of("operator", "Exists")));
        spec.put("containers", List.of(container));

        GenericKubernetesResource pod = new GenericKubernetesResource();
        pod.setApiVersion("v1");
        pod.setKind("Pod");
        pod.setMetadata(
                new ObjectMetaBuilder()
                        .withName(s.name())
                        .withNamespace(s.namespace())
                        .addToLabels("app", s.app())
                        .build());
        pod.setAdditionalProperty("spec", spec);
        return pod;
    }
}
