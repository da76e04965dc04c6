package org.gpuoperator.e2e.images;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;

/**
 * What the simulated nodes can pull, and what a pull of anything else answers: a pure function from
 * an image reference to either the local image that serves it (the simulated kubelet then tags that
 * image under the requested name in the node's containerd) or the error containerd's CRI would
 * give.
 *
 * <ul>
 *   <li>this project's images, {@code <registry>/<component>:<tag>} for any version-like tag
 *       ({@code 0.2.0}, {@code v1.2.3-rc.1}, a driver version such as {@code 580.65.06} or {@code
 *       570.172.08-ubuntu22.04}, and {@code latest}): the component's local image. The driver agent
 *       in simulation lays out the simulated package of the version it is told to install, so every
 *       tag is installable;
 *   <li>well-known workload images ({@link #WORKLOADS}): the busybox stand-in; NVIDIA's CUDA {@code
 *       vectoradd} samples: the stand-in with a simulated vectorAdd as its command ({@link
 *       CudaSampleImage});
 *   <li>anything else: not found on a registry host that exists ({@link #KNOWN_HOSTS}; Docker Hub's
 *       "pull access denied" for its repositories), a DNS failure on any other host.
 * </ul>
 */
public final class SimulatedRegistry {

    /** What serves an image. */
    public enum Kind {
        /** one of this project's component images */
        COMPONENT,
        /** a workload image played by the busybox stand-in (the pod's command runs on it) */
        WORKLOAD,
        /** a CUDA vectorAdd sample, played by {@link CudaSampleImage} */
        CUDA_VECTOR_ADD
    }

    /** The outcome of a pull. */
    public sealed interface Resolution {}

    /**
     * @param name the requested image, normalized
     * @param source the local image to tag under {@code name}
     */
    public record Served(ImageName name, String source, Kind kind) implements Resolution {}

    /**
     * @param name the requested image, normalized
     * @param code the gRPC status code name containerd answers with ({@code NotFound}, {@code
     *     Unknown})
     * @param description containerd's error text
     */
    public record NotServed(ImageName name, String code, String description) implements Resolution {
        /** As the kubelet prints the runtime's error: {@code rpc error: code = ... desc = ...}. */
        public String error() {
            return "rpc error: code = " + code + " desc = " + description;
        }
    }

    /** A reference that breaks the grammar; the kubelet reports {@code InvalidImageName}. */
    public record Invalid(String image) implements Resolution {
        public String message() {
            return "Failed to apply default image tag \""
                    + image
                    + "\": couldn't parse image reference \""
                    + image
                    + "\": invalid reference format";
        }
    }

    /** Registry hosts that exist: an unknown repository there is "not found", not a DNS error. */
    public static final Set<String> KNOWN_HOSTS =
            Set.of(
                    "docker.io",
                    "registry-1.docker.io",
                    "nvcr.io",
                    "ghcr.io",
                    "quay.io",
                    "registry.k8s.io",
                    "k8s.gcr.io",
                    "gcr.io",
                    "public.ecr.aws",
                    "mcr.microsoft.com",
                    "registry.access.redhat.com");

    /**
     * Workload repositories served by the stand-in, any tag. Docker Hub's official images as users
     * write them in examples, and NVIDIA's CUDA images.
     */
    public static final List<String> WORKLOADS =
            List.of(
                    "docker.io/library/busybox",
                    "docker.io/library/alpine",
                    "docker.io/library/ubuntu",
                    "docker.io/library/debian",
                    "docker.io/library/centos",
                    "docker.io/library/fedora",
                    "docker.io/library/rockylinux",
                    "docker.io/library/nginx",
                    "docker.io/library/httpd",
                    "docker.io/library/python",
                    "docker.io/nvidia/cuda",
                    "docker.io/nvidia/samples",
                    "nvcr.io/nvidia/cuda",
                    "nvcr.io/nvidia/k8s/cuda-sample",
                    "nvcr.io/nvidia/cuda-sample",
                    "registry.k8s.io/pause",
                    "registry.k8s.io/busybox");

    /** NVIDIA's CUDA sample repositories; a {@code vectoradd*} tag runs the simulated sample. */
    public static final Set<String> CUDA_SAMPLES =
            Set.of(
                    "nvcr.io/nvidia/k8s/cuda-sample",
                    "nvcr.io/nvidia/cuda-sample",
                    "docker.io/nvidia/samples");

    /** A tag this project could have released: a version, with an optional suffix, or latest. */
    static final Pattern COMPONENT_TAG =
            Pattern.compile("latest|v?\\d+(\\.\\d+){1,3}([-+][0-9A-Za-z][0-9A-Za-z.-]*)?");

    private final String registry;
    private final Map<String, String> components;
    private final String standIn;
    private final String vectorAdd;

    /**
     * @param registry this project's registry and namespace, e.g. {@code ghcr.io/gpu-operator-java}
     * @param components component name → the local image that serves it
     * @param standIn the busybox stand-in's reference
     * @param vectorAdd the simulated vectorAdd sample's reference
     */
    public SimulatedRegistry(
            String registry, Map<String, String> components, String standIn, String vectorAdd) {
        this.registry =
                registry.endsWith("/") ? registry.substring(0, registry.length() - 1) : registry;
        this.components = Map.copyOf(components);
        this.standIn = standIn;
        this.vectorAdd = vectorAdd;
    }

    /**
     * The registry of the simulated cluster: every component's local image as {@link LocalImages}
     * builds it (the references the controller renders by default).
     */
    public static SimulatedRegistry standard() {
        Map<String, String> components = new LinkedHashMap<>();
        for (String c : ImageLayout.COMPONENTS) {
            components.put(c, ClusterPolicyDefaults.imageReference(c));
        }
        return new SimulatedRegistry(
                ClusterPolicyDefaults.REGISTRY, components, BusyboxImage.REF, CudaSampleImage.REF);
    }

    public Resolution resolve(String image) {
        ImageName name = ImageName.parse(image).orElse(null);
        if (name == null) {
            return new Invalid(image);
        }
        String repo = name.repository();
        if (repo.startsWith(registry + "/")) {
            String source = components.get(repo.substring(registry.length() + 1));
            if (source != null
                    && name.tag() != null
                    && COMPONENT_TAG.matcher(name.tag()).matches()) {
                return new Served(name, source, Kind.COMPONENT);
            }
            return notFound(name);
        }
        if (WORKLOADS.contains(repo) && name.tag() != null) {
            boolean sample = CUDA_SAMPLES.contains(repo) && name.tag().startsWith("vectoradd");
            return sample
                    ? new Served(name, vectorAdd, Kind.CUDA_VECTOR_ADD)
                    : new Served(name, standIn, Kind.WORKLOAD);
        }
        if (name.host().equals(ImageName.DOCKER_HUB)) {
            return new NotServed(
                    name,
                    "Unknown",
                    prefix(name)
                            + "pull access denied, repository does not exist or may require "
                            + "authorization: server message: insufficient_scope: authorization failed");
        }
        if (KNOWN_HOSTS.contains(name.host())) {
            return notFound(name);
        }
        String host = name.host().replaceFirst(":\\d+$", "");
        String port = name.host().contains(":") ? name.host().replaceFirst("^.*:", "") : "443";
        String dial =
                host.equals("localhost") || host.equals("127.0.0.1")
                        ? "dial tcp 127.0.0.1:" + port + ": connect: connection refused"
                        : "dial tcp: lookup " + host + ": no such host";
        return new NotServed(
                name,
                "Unknown",
                prefix(name)
                        + "failed to do request: Head \"https://"
                        + name.host()
                        + "/v2/"
                        + name.path()
                        + "/manifests/"
                        + (name.digest() != null ? name.digest() : name.tag())
                        + "\": "
                        + dial);
    }

    private static NotServed notFound(ImageName name) {
        return new NotServed(name, "NotFound", prefix(name) + name.normalized() + ": not found");
    }

    private static String prefix(ImageName name) {
        String ref = name.normalized();
        return "failed to pull and unpack image \""
                + ref
                + "\": failed to resolve reference \""
                + ref
                + "\": ";
    }
}
