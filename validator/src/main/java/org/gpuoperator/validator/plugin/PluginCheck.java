package org.gpuoperator.validator.plugin;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.validator.cuda.WorkloadPods;
import org.gpuoperator.validator.cuda.WorkloadRunner;
import org.gpuoperator.validator.report.CheckResult;

/**
 * The plugin layer: this node advertises allocatable {@code nvidia.com/gpu} (or a {@code
 * nvidia.com/mig-*} resource) above 0; with {@code WITH_WORKLOAD}, a pod that requests one of them
 * succeeds too.
 */
public final class PluginCheck {

    public static final String APP = "nvidia-device-plugin-validator";
    public static final List<String> ARGS = List.of("workload", "cuda");

    public record Settings(
            String namespace,
            String nodeName,
            String runtimeClass,
            String image,
            boolean withWorkload,
            Duration timeout) {}

    private final Supplier<KubernetesClient> client;
    private final WorkloadRunner runner;
    private final Settings settings;

    public PluginCheck(
            Supplier<KubernetesClient> client, WorkloadRunner runner, Settings settings) {
        this.client = client;
        this.runner = runner;
        this.settings = settings;
    }

    public CheckResult run() throws InterruptedException {
        NodeGpus read = NodeGpus.read(client.get(), settings.nodeName());
        if (read.problem() != null) {
            return read.problem();
        }
        Map<String, Long> gpus = read.gpus();
        if (gpus.isEmpty()) {
            return CheckResult.waiting(
                    "node "
                            + settings.nodeName()
                            + " has no allocatable nvidia.com/gpu or nvidia.com/mig-* resource");
        }
        if (!settings.withWorkload()) {
            return CheckResult.ready();
        }
        return runner.run(
                WorkloadPods.pod(
                        new WorkloadPods.Spec(
                                APP + "-" + settings.nodeName(),
                                settings.namespace(),
                                settings.nodeName(),
                                settings.runtimeClass(),
                                settings.image(),
                                ARGS,
                                APP,
                                GpuResources.toRequest(gpus).orElseThrow())),
                settings.timeout());
    }
}
