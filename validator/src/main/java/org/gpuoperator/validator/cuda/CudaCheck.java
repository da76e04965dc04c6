package org.gpuoperator.validator.cuda;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.validator.plugin.GpuResources;
import org.gpuoperator.validator.plugin.NodeGpus;
import org.gpuoperator.validator.report.CheckResult;

/**
 * The cuda layer: a pod on this node under the NVIDIA runtime class runs {@code validator workload
 * cuda} (nvidia-smi) from the validator's image and succeeds. With a managed device plugin it
 * requests one GPU (and waits until the node advertises one); without, it asks for none and sees
 * every GPU through {@code NVIDIA_VISIBLE_DEVICES=all}.
 */
public final class CudaCheck {

    public static final List<String> ARGS = List.of("workload", "cuda");
    public static final String APP = "nvidia-cuda-validator";

    public record Settings(
            String namespace,
            String nodeName,
            String runtimeClass,
            String image,
            boolean requestGpu,
            Duration timeout) {}

    private final Supplier<KubernetesClient> client;
    private final WorkloadRunner runner;
    private final Settings settings;

    public CudaCheck(Supplier<KubernetesClient> client, WorkloadRunner runner, Settings settings) {
        this.client = client;
        this.runner = runner;
        this.settings = settings;
    }

    public String podName() {
        return APP + "-" + settings.nodeName();
    }

    public CheckResult run() throws InterruptedException {
        String resource = null;
        if (settings.requestGpu()) {
            NodeGpus read = NodeGpus.read(client.get(), settings.nodeName());
            if (read.problem() != null) {
                return read.problem();
            }
            Map<String, Long> gpus = read.gpus();
            if (gpus.isEmpty()) {
                return CheckResult.waiting(
                        "node "
                                + settings.nodeName()
                                + " has no allocatable nvidia.com/gpu yet (the device plugin"
                                + " advertises it)");
            }
            resource = GpuResources.toRequest(gpus).orElseThrow();
        }
        return runner.run(
                WorkloadPods.pod(
                        new WorkloadPods.Spec(
                                podName(),
                                settings.namespace(),
                                settings.nodeName(),
                                settings.runtimeClass(),
                                settings.image(),
                                ARGS,
                                APP,
                                resource)),
                settings.timeout());
    }
}
