package org.gpuoperator.validator.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.validator.cuda.MockCluster.NODE;
import static org.gpuoperator.validator.cuda.MockCluster.NS;

import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.CheckState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CudaCheckTest {

    final MockCluster cluster = new MockCluster();
    final String pod = "nvidia-cuda-validator-" + NODE;

    @AfterEach
    void close() {
        cluster.close();
    }

    CudaCheck check(boolean requestGpu) {
        return new CudaCheck(
                () -> cluster.client,
                new WorkloadRunner(() -> cluster.client, Duration.ofMillis(50)),
                new CudaCheck.Settings(
                        NS,
                        NODE,
                        "nvidia-custom",
                        "reg/validator:1",
                        requestGpu,
                        Duration.ofSeconds(10)));
    }

    @Test
    void aSucceededPodIsReadyAndThePodHadTheRightSpecAndIsDeletedAfterwards() throws Exception {
        var kubelet =
                cluster.kubelet(
                        pod,
                        p -> p.setStatus(new PodStatusBuilder().withPhase("Succeeded").build()));
        CheckResult r = check(false).run();
        assertThat(r.state()).as(r.reason()).isEqualTo(CheckState.READY);
        Pod created = kubelet.get(10, TimeUnit.SECONDS);
        assertThat(created.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(created.getSpec().getRuntimeClassName()).isEqualTo("nvidia-custom");
        assertThat(created.getSpec().getRestartPolicy()).isEqualTo("Never");
        assertThat(created.getMetadata().getLabels()).containsEntry("app", CudaCheck.APP);
        // the node is tainted until this check passes
        assertThat(created.getSpec().getTolerations())
                .singleElement()
                .satisfies(
                        t -> {
                            assertThat(t.getOperator()).isEqualTo("Exists");
                            assertThat(t.getKey()).isNull();
                        });
        var c = created.getSpec().getContainers().get(0);
        assertThat(c.getName()).isEqualTo(CudaCheck.APP);
        assertThat(c.getImage()).isEqualTo("reg/validator:1");
        assertThat(c.getImagePullPolicy()).isEqualTo("IfNotPresent");
        assertThat(c.getArgs()).containsExactly("workload", "cuda");
        // no device plugin: no GPU request, every GPU through the runtime
        assertThat(c.getResources() == null ? Map.of() : c.getResources().getLimits())
                .isNullOrEmpty();
        assertThat(c.getEnv())
                .anyMatch(
                        e ->
                                e.getName().equals("NVIDIA_VISIBLE_DEVICES")
                                        && e.getValue().equals("all"));
        assertThat(cluster.client.pods().inNamespace(NS).withName(pod).get()).isNull();
        // deleted at once, as kubectl delete --grace-period=0 asks
        List<String> deletes = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        RecordedRequest request;
        while ((request = cluster.server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            paths.add(request.getPath());
            if (request.getMethod().equals("DELETE")) {
                deletes.add(request.getPath() + " " + request.getBody().readUtf8());
            }
        }
        // a pod that succeeded needs no reason: its events are not listed
        assertThat(paths).isNotEmpty().noneMatch(path -> path.contains("/events"));
        assertThat(deletes)
                .singleElement()
                .asString()
                .startsWith("/api/v1/namespaces/" + NS + "/pods/" + pod + " ")
                .contains("\"gracePeriodSeconds\":0");
    }

    @Test
    void aFailedPodIsFailedWithTheContainersMessage() throws Exception {
        cluster.kubelet(
                pod,
                p ->
                        p.setStatus(
                                new PodStatusBuilder()
                                        .withPhase("Failed")
                                        .withContainerStatuses(
                                                new ContainerStatusBuilder()
                                                        .withName("nvidia-cuda-validator")
                                                        .withNewState()
                                                        .withNewTerminated()
                                                        .withExitCode(1)
                                                        .withReason("Error")
                                                        .withMessage("nvidia-smi -L lists no GPU")
                                                        .endTerminated()
                                                        .endState()
                                                        .build())
                                        .build()));
        CheckResult r = check(false).run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .isEqualTo(
                        "pod nvidia-cuda-validator-node-a failed: exit code 1: Error: nvidia-smi -L lists no GPU");
    }

    @Test
    void aFailedPodWithoutContainerStatusTakesTheRuntimesErrorFromItsWarningEvent()
            throws Exception {
        cluster.kubelet(
                pod,
                p -> {
                    cluster.client
                            .v1()
                            .events()
                            .inNamespace(NS)
                            .resource(
                                    new EventBuilder()
                                            .withNewMetadata()
                                            .withName(pod + ".1")
                                            .endMetadata()
                                            .withType("Warning")
                                            .withReason("FailedCreatePodSandBox")
                                            .withMessage("no runtime for \"nvidia\" is configured")
                                            .withNewInvolvedObject()
                                            .withKind("Pod")
                                            .withName(pod)
                                            .withNamespace(NS)
                                            .endInvolvedObject()
                                            .build())
                            .create();
                    p.setStatus(new PodStatusBuilder().withPhase("Failed").build());
                });
        CheckResult r = check(false).run();
        assertThat(r.reason())
                .isEqualTo(
                        "pod nvidia-cuda-validator-node-a failed: FailedCreatePodSandBox: no runtime for \"nvidia\" is configured");
    }

    @Test
    void withAManagedPluginThePodRequestsOneGpuOnceTheNodeAdvertisesOne() throws Exception {
        cluster.node(Map.of("nvidia.com/gpu", "0"));
        CheckResult r = check(true).run();
        assertThat(r.state()).isEqualTo(CheckState.WAITING);
        assertThat(r.reason()).contains("node node-a has no allocatable nvidia.com/gpu");
        assertThat(cluster.client.pods().inNamespace(NS).list().getItems()).isEmpty();

        var n = cluster.client.nodes().withName(NODE).get();
        n.getStatus().getAllocatable().put("nvidia.com/gpu", new Quantity("2"));
        cluster.client.nodes().resource(n).updateStatus();
        var kubelet =
                cluster.kubelet(
                        pod,
                        p -> p.setStatus(new PodStatusBuilder().withPhase("Succeeded").build()));
        assertThat(check(true).run().isReady()).isTrue();
        Pod created = kubelet.get(10, TimeUnit.SECONDS);
        assertThat(created.getSpec().getContainers().get(0).getResources().getLimits())
                .containsEntry("nvidia.com/gpu", new Quantity("1"));
    }

    @Test
    void aPodThatNeverFinishesFailsAfterTheTimeoutAndIsRemoved() throws Exception {
        CheckResult r =
                new CudaCheck(
                                () -> cluster.client,
                                new WorkloadRunner(() -> cluster.client, Duration.ofMillis(50)),
                                new CudaCheck.Settings(
                                        NS, NODE, "nvidia", "img", false, Duration.ofMillis(300)))
                        .run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .startsWith("not finished after 0s: pod nvidia-cuda-validator-node-a is Pending");
        assertThat(cluster.client.pods().inNamespace(NS).withName(pod).get()).isNull();
    }

    @Test
    void aLeftoverPodOfTheSameNameIsDeletedBeforeTheNewOneIsCreated() throws Exception {
        cluster.client
                .pods()
                .inNamespace(NS)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName(pod)
                                .withNamespace(NS)
                                .addToLabels("leftover", "true")
                                .endMetadata()
                                .withNewSpec()
                                .addNewContainer()
                                .withName("c")
                                .withImage("old")
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        CompletableFuture<Pod> kubelet =
                CompletableFuture.supplyAsync(
                        () -> {
                            Awaitility.await()
                                    .atMost(Duration.ofSeconds(10))
                                    .until(
                                            () -> {
                                                Pod p =
                                                        cluster.client
                                                                .pods()
                                                                .inNamespace(NS)
                                                                .withName(pod)
                                                                .get();
                                                return p != null
                                                        && !p.getMetadata()
                                                                .getLabels()
                                                                .containsKey("leftover");
                                            });
                            Pod p = cluster.client.pods().inNamespace(NS).withName(pod).get();
                            p.setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
                            cluster.client.pods().inNamespace(NS).resource(p).updateStatus();
                            return p;
                        },
                        Executors.newVirtualThreadPerTaskExecutor());
        CheckResult r = check(false).run();
        assertThat(r.state()).as(r.reason()).isEqualTo(CheckState.READY);
        assertThat(kubelet.get(10, TimeUnit.SECONDS).getSpec().getContainers().get(0).getImage())
                .isEqualTo("reg/validator:1");
        assertThat(cluster.client.pods().inNamespace(NS).withName(pod).get()).isNull();
    }
}
