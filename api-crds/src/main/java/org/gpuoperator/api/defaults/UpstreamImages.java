package org.gpuoperator.api.defaults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.api.common.ImageSpec;
import org.gpuoperator.api.v1.ClusterPolicySpec;

/**
 * NVIDIA's operand images in a policy written for upstream, mapped to this operator's (pure). An
 * image field that names NVIDIA's image of an operand (by repository and image name, e.g. {@code
 * nvcr.io/nvidia/k8s} + {@code container-toolkit}) would run NVIDIA's binary with this operator's
 * pod spec, which crashes on a real node: it is replaced by this operator's image of the same
 * operand. The driver's version is kept (the driver agent's image is tagged with the driver version
 * it installs); the others take this operator's released version. An image that is not NVIDIA's (a
 * private mirror, this operator's own) is used as given.
 */
public final class UpstreamImages {

    private UpstreamImages() {}

    /**
     * One image field replaced.
     *
     * @param path the field, e.g. {@code spec.driver.image}
     * @param given the image as the field named it
     * @param replacement this operator's image that runs instead
     */
    public record Replacement(String path, String given, String replacement) {
        public String message() {
            return "NVIDIA's image "
                    + given
                    + " is replaced by this operator's image of the same operand, "
                    + replacement
                    + " (NVIDIA's images do not run with this operator's pod specs)";
        }
    }

    /** The new fields of a replaced image. */
    public record Mapped(
            String repository, String image, String version, Replacement replacement) {}

    /** NVIDIA's image names of each operand of this operator (by this operator's image name). */
    static final Map<String, Set<String>> NVIDIA_IMAGES =
            Map.of(
                    ClusterPolicyDefaults.DRIVER_IMAGE,
                    Set.of("driver"),
                    ClusterPolicyDefaults.TOOLKIT_IMAGE,
                    Set.of("container-toolkit"),
                    ClusterPolicyDefaults.DEVICE_PLUGIN_IMAGE,
                    Set.of("k8s-device-plugin"),
                    // feature discovery ships in the device plugin's image since v0.15
                    ClusterPolicyDefaults.GFD_IMAGE,
                    Set.of("k8s-device-plugin", "gpu-feature-discovery"),
                    ClusterPolicyDefaults.DCGM_EXPORTER_IMAGE,
                    Set.of("dcgm-exporter"),
                    // the chart's validator is the operator's own image since v25.10
                    ClusterPolicyDefaults.VALIDATOR_IMAGE,
                    Set.of("gpu-operator", "gpu-operator-validator"),
                    ClusterPolicyDefaults.MIG_MANAGER_IMAGE,
                    Set.of("k8s-mig-manager"));

    /**
     * NVIDIA's registries: NGC's {@code nvcr.io/nvidia} and everything below it ({@code
     * nvcr.io/nvidia/k8s}, {@code nvcr.io/nvidia/cloud-native}), and Docker Hub's {@code nvidia}.
     */
    static boolean nvidiaRepository(String repository) {
        String r = repository.strip();
        if (r.startsWith("docker.io/")) {
            r = r.substring("docker.io/".length());
        }
        return r.equals("nvcr.io/nvidia") || r.startsWith("nvcr.io/nvidia/") || r.equals("nvidia");
    }

    /**
     * The replacement of one image field, or empty when it does not name NVIDIA's image of the
     * operand.
     *
     * @param path the field, for the status
     * @param ourImage this operator's image name of the operand (e.g. {@code driver-agent})
     */
    public static Optional<Mapped> map(
            String path, String ourImage, String repository, String image, String version) {
        Set<String> theirs = NVIDIA_IMAGES.get(ourImage);
        if (theirs == null || image == null || image.isBlank()) {
            return Optional.empty();
        }
        String repo;
        String name;
        String tag;
        String given;
        if (!isBlank(repository)) {
            repo = repository.strip();
            name = image.strip();
            tag = isBlank(version) ? null : version.strip();
            given =
                    repo
                            + "/"
                            + name
                            + (tag == null ? "" : (tag.startsWith("sha256:") ? "@" : ":") + tag);
        } else if (isBlank(version) && ImageSpec.isFullImagePath(image.strip())) {
            // a full reference alone: registry/path/name(:tag|@digest)
            given = image.strip();
            int at = given.indexOf('@');
            String withoutDigest = at < 0 ? given : given.substring(0, at);
            int slash = withoutDigest.lastIndexOf('/');
            int colon = withoutDigest.indexOf(':', slash);
            String path0 = colon < 0 ? withoutDigest : withoutDigest.substring(0, colon);
            tag =
                    at >= 0
                            ? given.substring(at + 1)
                            : colon < 0 ? null : withoutDigest.substring(colon + 1);
            repo = path0.substring(0, path0.lastIndexOf('/'));
            name = path0.substring(path0.lastIndexOf('/') + 1);
        } else {
            return Optional.empty();
        }
        if (!nvidiaRepository(repo) || !theirs.contains(name)) {
            return Optional.empty();
        }
        boolean keepsVersion =
                ourImage.equals(ClusterPolicyDefaults.DRIVER_IMAGE)
                        && tag != null
                        && !tag.startsWith("sha256:");
        String ourVersion = keepsVersion ? tag : ClusterPolicyDefaults.imageVersion(ourImage);
        String replacement = ClusterPolicyDefaults.REGISTRY + "/" + ourImage + ":" + ourVersion;
        return Optional.of(
                new Mapped(
                        ClusterPolicyDefaults.REGISTRY,
                        ourImage,
                        ourVersion,
                        new Replacement(path, given, replacement)));
    }

    /** {@link #map} of an image section, applied to it in place. */
    public static Optional<Replacement> replace(String path, ImageSpec spec, String ourImage) {
        if (spec == null) {
            return Optional.empty();
        }
        Optional<Mapped> mapped =
                map(path, ourImage, spec.getRepository(), spec.getImage(), spec.getVersion());
        mapped.ifPresent(
                m -> {
                    spec.setRepository(m.repository());
                    spec.setImage(m.image());
                    spec.setVersion(m.version());
                });
        return mapped.map(Mapped::replacement);
    }

    /**
     * Replaces, in place, every image of the spec's operands that names NVIDIA's (done by {@link
     * ClusterPolicyDefaults#effective} on its copy).
     */
    static List<Replacement> replaceAll(ClusterPolicySpec spec) {
        List<Replacement> out = new ArrayList<>();
        replace("spec.driver.image", spec.getDriver(), ClusterPolicyDefaults.DRIVER_IMAGE)
                .ifPresent(out::add);
        replace("spec.toolkit.image", spec.getToolkit(), ClusterPolicyDefaults.TOOLKIT_IMAGE)
                .ifPresent(out::add);
        replace(
                        "spec.devicePlugin.image",
                        spec.getDevicePlugin(),
                        ClusterPolicyDefaults.DEVICE_PLUGIN_IMAGE)
                .ifPresent(out::add);
        replace("spec.gfd.image", spec.getGfd(), ClusterPolicyDefaults.GFD_IMAGE)
                .ifPresent(out::add);
        replace(
                        "spec.dcgmExporter.image",
                        spec.getDcgmExporter(),
                        ClusterPolicyDefaults.DCGM_EXPORTER_IMAGE)
                .ifPresent(out::add);
        replace("spec.validator.image", spec.getValidator(), ClusterPolicyDefaults.VALIDATOR_IMAGE)
                .ifPresent(out::add);
        replace(
                        "spec.migManager.image",
                        spec.getMigManager(),
                        ClusterPolicyDefaults.MIG_MANAGER_IMAGE)
                .ifPresent(out::add);
        return List.copyOf(out);
    }

    /**
     * The images of the spec that {@link ClusterPolicyDefaults#effective} replaces, for the status;
     * the spec is left as it was.
     */
    public static List<Replacement> of(ClusterPolicySpec spec) {
        if (spec == null) {
            return List.of();
        }
        return replaceAll(ClusterPolicyDefaults.copy(spec));
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
