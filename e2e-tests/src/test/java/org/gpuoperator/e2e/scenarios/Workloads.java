package org.gpuoperator.e2e.scenarios;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.gpuoperator.e2e.cluster.SimulatedCluster;

/**
 * GPU workload pods of the scenarios: one container running a shell script in a CUDA image, its log
 * read as {@code kubectl logs} reads it (through the API front), and its deletion awaited.
 */
final class Workloads {

    static final String IMAGE = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
    static final String NAMESPACE = "default";

    private Workloads() {}

    /**
     * Creates a pod that asks for one {@code resource} and runs {@code script}.
     *
     * @param node the node to run on, or null for the scheduler's choice
     * @param runtimeClass the pod's runtimeClassName, or null for the node's default runtime
     */
    static Pod create(
            KubernetesClient client,
            String name,
            String node,
            String runtimeClass,
            String resource,
            String script) {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(NAMESPACE)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .withRuntimeClassName(runtimeClass)
                        .withRestartPolicy("Never")
                        // a shell's sleep as PID 1 ignores SIGTERM: deleting the pod would wait
                        // out the 30 s default
                        .withTerminationGracePeriodSeconds(2L)
                        .addNewContainer()
                        .withName("main")
                        .withImage(IMAGE)
                        .withCommand("sh", "-c", script)
                        .withNewResources()
                        .addToLimits(resource, new Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        return client.pods().inNamespace(NAMESPACE).resource(pod).create();
    }

    /** The pod's log lines, as kubectl logs gets them. */
    static List<String> log(SimulatedCluster cluster, String name) {
        return log(cluster, NAMESPACE, name);
    }

    /** The log lines of pod {@code name} in {@code namespace}, as kubectl logs gets them. */
    static List<String> log(SimulatedCluster cluster, String namespace, String name) {
        try (KubernetesClient front = Scenarios.front(cluster)) {
            return front.pods().inNamespace(namespace).withName(name).getLog().lines().toList();
        }
    }

    /** The pod's phase, or null before the kubelet reported one. */
    static String phase(KubernetesClient client, String name) {
        Pod p = client.pods().inNamespace(NAMESPACE).withName(name).get();
        return p == null || p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    static void delete(KubernetesClient client, String name) {
        client.pods().inNamespace(NAMESPACE).withName(name).delete();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> client.pods().inNamespace(NAMESPACE).withName(name).get() == null);
    }
}
