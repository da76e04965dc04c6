package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PodSpecMappingTest {

    private final PodSpecMapping mapping = new PodSpecMapping(Path.of("/repo"), "/jdk/bin/java");
    private final Path nodeRoot = Path.of("/sim/n1");

    private static Pod pod(String module) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("gpu-operator")
                .addToLabels("app.kubernetes.io/name", module)
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("x")
                .withArgs("--config=/config/plugin.yaml", "--fail-on-init-error")
                .addNewEnv()
                .withName("NODE_NAME")
                .withNewValueFrom()
                .withNewFieldRef()
                .withFieldPath("spec.nodeName")
                .endFieldRef()
                .endValueFrom()
                .endEnv()
                .addNewEnv()
                .withName("HOST_ROOT")
                .withValue("/host")
                .endEnv()
                .addNewEnv()
                .withName("VALIDATIONS_DIR")
                .withValue("/run/nvidia/validations")
                .endEnv()
                .addNewEnv()
                .withName("HEALTH_ADDRESS")
                .withValue(":8081")
                .endEnv()
                .addNewEnv()
                .withName("GPU_SOURCE")
                .withValue("simulated:t4-x1")
                .endEnv()
                .addNewVolumeMount()
                .withName("host-root")
                .withMountPath("/host")
                .endVolumeMount()
                .addNewVolumeMount()
                .withName("validations")
                .withMountPath("/run/nvidia/validations")
                .endVolumeMount()
                .addNewVolumeMount()
                .withName("dp")
                .withMountPath("/var/lib/kubelet/device-plugins")
                .endVolumeMount()
                .addNewPort()
                .withName("health")
                .withContainerPort(8081)
                .endPort()
                .withNewReadinessProbe()
                .withNewHttpGet()
                .withPath("/readyz")
                .withNewPort("health")
                .endHttpGet()
                .endReadinessProbe()
                .endContainer()
                .addNewVolume()
                .withName("host-root")
                .withNewHostPath()
                .withPath("/")
                .endHostPath()
                .endVolume()
                .addNewVolume()
                .withName("validations")
                .withNewHostPath()
                .withPath("/run/nvidia/validations")
                .endHostPath()
                .endVolume()
                .addNewVolume()
                .withName("dp")
                .withNewHostPath()
                .withPath("/var/lib/kubelet/device-plugins")
                .endHostPath()
                .endVolume()
                .addNewVolume()
                .withName("cfg")
                .withNewConfigMap()
                .withName("c")
                .endConfigMap()
                .endVolume()
                .endSpec()
                .build();
    }

    @Test
    void mapsImageMountsPortsAndDownwardApiOntoTheNodesHostRoot() {
        AtomicInteger ports = new AtomicInteger(40000);
        LaunchSpec s =
                mapping.map(
                        pod("device-plugin"),
                        "gpu-node-1",
                        nodeRoot,
                        ports::incrementAndGet,
                        Map.of("KUBECONFIG", "/sim/kubeconfig"));
        assertThat(s.module()).isEqualTo("device-plugin");
        assertThat(s.command())
                .startsWith(
                        "/jdk/bin/java",
                        "@/repo/images/device-plugin/jvm.flags",
                        "-jar",
                        "/repo/device-plugin/target/device-plugin.jar");
        // a ConfigMap mount is not a host path: left as is
        assertThat(s.command())
                .contains(
                        "--config=/config/plugin.yaml",
                        "--fail-on-init-error",
                        "--device-plugin-path=/sim/n1/var/lib/kubelet/device-plugins");
        assertThat(s.env())
                .containsEntry("NODE_NAME", "gpu-node-1")
                .containsEntry("HOST_ROOT", "/sim/n1")
                .containsEntry("VALIDATIONS_DIR", "/sim/n1/run/nvidia/validations")
                .containsEntry("HEALTH_ADDRESS", "127.0.0.1:40001")
                .containsEntry("GPU_SOURCE", "simulated:t4-x1")
                .containsEntry("KUBECONFIG", "/sim/kubeconfig");
        assertThat(s.ports()).containsExactly(Map.entry(8081, 40001));
        assertThat(s.readinessUrl()).isEqualTo("http://127.0.0.1:40001/readyz");
    }

    @Test
    void anExplicitOptionIsNotAddedTwice() {
        Pod p = pod("device-plugin");
        p.getSpec()
                .getContainers()
                .get(0)
                .getArgs()
                .add("--device-plugin-path=/var/lib/kubelet/device-plugins");
        LaunchSpec s = mapping.map(p, "n", nodeRoot, () -> 1, Map.of());
        assertThat(s.command().stream().filter(a -> a.startsWith("--device-plugin-path")))
                .singleElement()
                .isEqualTo("--device-plugin-path=/sim/n1/var/lib/kubelet/device-plugins");
    }

    @Test
    void aHostRootWithOnlySubdirectoriesMountedMapsToTheNodeRoot() {
        var mounts =
                new java.util.ArrayList<Map.Entry<String, Path>>(
                        java.util.List.of(
                                Map.entry(
                                        "/host/etc/containerd", Path.of("/sim/n1/etc/containerd")),
                                Map.entry(
                                        "/host/run/containerd",
                                        Path.of("/sim/n1/run/containerd"))));
        assertThat(PodSpecMapping.rewrite("/host", mounts, Map.of())).isEqualTo("/sim/n1");
        // a mount from somewhere else under /host breaks the convention: no guess
        mounts.add(Map.entry("/host/opt", Path.of("/sim/n1/data/opt")));
        assertThat(PodSpecMapping.rewrite("/host", mounts, Map.of())).isEqualTo("/host");
    }

    @Test
    void rejectsPodsThatAreNotOurAgents() {
        assertThatThrownBy(() -> mapping.map(pod("nginx"), "n", nodeRoot, () -> 1, Map.of()))
                .hasMessageContaining("app.kubernetes.io/name")
                .hasMessageContaining("nginx");
    }

    @Test
    void rewriteLeavesUnrelatedValuesAlone() {
        var mounts = java.util.List.of(Map.entry("/host", Path.of("/sim/n1")));
        assertThat(PodSpecMapping.rewrite("/hostname", mounts, Map.of())).isEqualTo("/hostname");
        assertThat(PodSpecMapping.rewrite("/host/etc/x", mounts, Map.of()))
                .isEqualTo("/sim/n1/etc/x");
        assertThat(PodSpecMapping.rewrite(":9400", mounts, Map.of())).isEqualTo(":9400");
        assertThat(PodSpecMapping.rewrite("0.0.0.0:9400", mounts, Map.of(9400, 5)))
                .isEqualTo("127.0.0.1:5");
    }
}
