package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.e2e.images.SimulatedRegistry.Kind;
import org.gpuoperator.e2e.images.SimulatedRegistry.NotServed;
import org.gpuoperator.e2e.images.SimulatedRegistry.Served;
import org.junit.jupiter.api.Test;

class SimulatedRegistryTest {

    static final String AGENT = "ghcr.io/gpu-operator-java/driver-agent:0.1.0";
    static final SimulatedRegistry REGISTRY =
            new SimulatedRegistry(
                    "ghcr.io/gpu-operator-java",
                    Map.of("driver-agent", AGENT, "device-plugin", "local/plugin:1"),
                    "local/busybox:1",
                    "local/vectoradd:1");

    @Test
    void referencesAreNormalizedAsContainerdDoes() {
        assertThat(ImageName.parse("busybox").orElseThrow().normalized())
                .isEqualTo("docker.io/library/busybox:latest");
        assertThat(
                        ImageName.parse("nvidia/cuda:12.4.1-base-ubuntu22.04")
                                .orElseThrow()
                                .normalized())
                .isEqualTo("docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04");
        assertThat(ImageName.parse("localhost:5000/a/b").orElseThrow())
                .isEqualTo(new ImageName("localhost:5000", "a/b", "latest", null));
        String digest = "sha256:" + "a".repeat(64);
        assertThat(ImageName.parse("nvcr.io/nvidia/cuda@" + digest).orElseThrow())
                .isEqualTo(new ImageName("nvcr.io", "nvidia/cuda", null, digest));
        assertThat(ImageName.parse("Busybox")).isEmpty();
        assertThat(ImageName.parse("busybox:")).isEmpty();
        assertThat(ImageName.parse("busybox@sha256:12")).isEmpty();
        assertThat(ImageName.parse(" busybox")).isEmpty();
    }

    @Test
    void pullPolicyDefaultsAsTheApiServerDoes() {
        assertThat(ImageName.defaultPullPolicy("busybox")).isEqualTo("Always");
        assertThat(ImageName.defaultPullPolicy("busybox:latest")).isEqualTo("Always");
        assertThat(ImageName.defaultPullPolicy("busybox:1.36")).isEqualTo("IfNotPresent");
        assertThat(ImageName.defaultPullPolicy("busybox@sha256:" + "b".repeat(64)))
                .isEqualTo("IfNotPresent");
    }

    @Test
    void ourComponentsAreServedUnderAnyVersionTagFromTheirLocalImage() {
        for (String tag :
                new String[] {
                    "0.1.0", "0.2.0", "v1.2.3-rc.1", "580.65.06", "570.172.08-ubuntu22.04", "latest"
                }) {
            assertThat(REGISTRY.resolve("ghcr.io/gpu-operator-java/driver-agent:" + tag))
                    .as(tag)
                    .isEqualTo(
                            new Served(
                                    new ImageName(
                                            "ghcr.io", "gpu-operator-java/driver-agent", tag, null),
                                    AGENT,
                                    Kind.COMPONENT));
        }
        assertThat(REGISTRY.resolve("ghcr.io/gpu-operator-java/device-plugin:0.3.1"))
                .isInstanceOfSatisfying(
                        Served.class, s -> assertThat(s.source()).isEqualTo("local/plugin:1"));
    }

    @Test
    void whatCannotBeOursIsNotFound() {
        for (String image :
                new String[] {
                    "ghcr.io/gpu-operator-java/driver-agent:does-not-exist",
                    "ghcr.io/gpu-operator-java/vgpu-manager:0.1.0",
                    "ghcr.io/gpu-operator-java/driver-agent@sha256:" + "c".repeat(64)
                }) {
            assertThat(REGISTRY.resolve(image))
                    .as(image)
                    .isInstanceOfSatisfying(
                            NotServed.class, n -> assertThat(n.code()).isEqualTo("NotFound"));
        }
        NotServed n = (NotServed) REGISTRY.resolve("ghcr.io/gpu-operator-java/driver-agent:nope");
        assertThat(n.error())
                .isEqualTo(
                        "rpc error: code = NotFound desc = failed to pull and unpack image"
                                + " \"ghcr.io/gpu-operator-java/driver-agent:nope\": failed to"
                                + " resolve reference \"ghcr.io/gpu-operator-java/driver-agent:nope\":"
                                + " ghcr.io/gpu-operator-java/driver-agent:nope: not found");
    }

    @Test
    void wellKnownWorkloadImagesRunTheStandInAndVectorAddItsSample() {
        for (String image :
                new String[] {
                    "busybox",
                    "ubuntu:22.04",
                    "docker.io/library/nginx:1.27",
                    "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
                    "nvidia/cuda:12.2.0-base-ubuntu22.04",
                    "nvcr.io/nvidia/k8s/cuda-sample:nbody"
                }) {
            assertThat(REGISTRY.resolve(image))
                    .as(image)
                    .isInstanceOfSatisfying(
                            Served.class,
                            s -> {
                                assertThat(s.kind()).isEqualTo(Kind.WORKLOAD);
                                assertThat(s.source()).isEqualTo("local/busybox:1");
                            });
        }
        for (String image :
                new String[] {
                    "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0",
                    "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda11.7.1-ubuntu20.04",
                    "nvcr.io/nvidia/cuda-sample:vectoradd-cuda11.2.1",
                    "nvidia/samples:vectoradd-cuda11.2.1"
                }) {
            assertThat(REGISTRY.resolve(image))
                    .as(image)
                    .isInstanceOfSatisfying(
                            Served.class,
                            s -> {
                                assertThat(s.kind()).isEqualTo(Kind.CUDA_VECTOR_ADD);
                                assertThat(s.source()).isEqualTo("local/vectoradd:1");
                            });
        }
    }

    @Test
    void unknownRepositoriesAndHostsFailAsContainerdReportsThem() {
        NotServed hub = (NotServed) REGISTRY.resolve("no-such-image-here:1");
        assertThat(hub.error())
                .isEqualTo(
                        "rpc error: code = Unknown desc = failed to pull and unpack image"
                                + " \"docker.io/library/no-such-image-here:1\": failed to resolve"
                                + " reference \"docker.io/library/no-such-image-here:1\": pull access"
                                + " denied, repository does not exist or may require authorization:"
                                + " server message: insufficient_scope: authorization failed");
        assertThat(((NotServed) REGISTRY.resolve("nvcr.io/nvidia/driver:595.91.07")).code())
                .isEqualTo("NotFound");
        NotServed dns = (NotServed) REGISTRY.resolve("registry.example.com/team/app:1.0");
        assertThat(dns.error())
                .isEqualTo(
                        "rpc error: code = Unknown desc = failed to pull and unpack image"
                                + " \"registry.example.com/team/app:1.0\": failed to resolve reference"
                                + " \"registry.example.com/team/app:1.0\": failed to do request: Head"
                                + " \"https://registry.example.com/v2/team/app/manifests/1.0\": dial"
                                + " tcp: lookup registry.example.com: no such host");
        assertThat(((NotServed) REGISTRY.resolve("driver.invalid:5000/x:1")).description())
                .endsWith("dial tcp: lookup driver.invalid: no such host");
        assertThat(((NotServed) REGISTRY.resolve("localhost:5000/x:1")).description())
                .endsWith("dial tcp 127.0.0.1:5000: connect: connection refused");
        assertThat(REGISTRY.resolve("Not/Valid"))
                .isEqualTo(new SimulatedRegistry.Invalid("Not/Valid"));
    }

    @Test
    void theStandardRegistryServesWhatTheControllerRendersByDefault() {
        SimulatedRegistry standard = SimulatedRegistry.standard();
        for (String c : ImageLayout.COMPONENTS) {
            String ref = ClusterPolicyDefaults.imageReference(c);
            assertThat(standard.resolve(ref))
                    .as(ref)
                    .isInstanceOfSatisfying(
                            Served.class, s -> assertThat(s.source()).isEqualTo(ref));
        }
        assertThat(standard.resolve(ClusterPolicyDefaults.REGISTRY + "/driver-agent:580.95.05"))
                .isInstanceOfSatisfying(
                        Served.class,
                        s ->
                                assertThat(s.source())
                                        .isEqualTo(
                                                ClusterPolicyDefaults.imageReference(
                                                        "driver-agent")));
        assertThat(standard.resolve("busybox"))
                .isInstanceOfSatisfying(
                        Served.class, s -> assertThat(s.source()).isEqualTo(BusyboxImage.REF));
        assertThat(standard.resolve("nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"))
                .isInstanceOfSatisfying(
                        Served.class, s -> assertThat(s.source()).isEqualTo(CudaSampleImage.REF));
    }
}
