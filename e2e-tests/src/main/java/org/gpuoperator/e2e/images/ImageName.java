package org.gpuoperator.e2e.images;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An image reference as containerd normalizes it (the docker reference grammar): {@code busybox} is
 * {@code docker.io/library/busybox:latest}; the first path component is a registry host when it has
 * a dot or a port or is {@code localhost}. Pure.
 *
 * @param host the registry host, e.g. {@code docker.io}, {@code nvcr.io}, {@code localhost:5000}
 * @param path the repository path below the host, e.g. {@code library/busybox}, {@code
 *     nvidia/k8s/cuda-sample}
 * @param tag the tag ({@code latest} when none and no digest); null with a digest only
 * @param digest {@code sha256:<hex>}, or null
 */
public record ImageName(String host, String path, String tag, String digest) {

    public static final String DOCKER_HUB = "docker.io";

    private static final Pattern COMPONENT =
            Pattern.compile("[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*");
    private static final Pattern HOST =
            Pattern.compile(
                    "(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?");
    private static final Pattern TAG = Pattern.compile("[\\w][\\w.-]{0,127}");
    private static final Pattern DIGEST = Pattern.compile("sha256:[a-f0-9]{64}");

    /** The parsed reference, or empty when it breaks the grammar ("invalid reference format"). */
    public static Optional<ImageName> parse(String image) {
        if (image == null || image.isEmpty() || !image.equals(image.strip())) {
            return Optional.empty();
        }
        String rest = image;
        String digest = null;
        int at = rest.indexOf('@');
        if (at >= 0) {
            digest = rest.substring(at + 1);
            rest = rest.substring(0, at);
            if (!DIGEST.matcher(digest).matches()) {
                return Optional.empty();
            }
        }
        String tag = null;
        int colon = rest.lastIndexOf(':');
        if (colon > rest.lastIndexOf('/')) {
            tag = rest.substring(colon + 1);
            rest = rest.substring(0, colon);
            if (!TAG.matcher(tag).matches()) {
                return Optional.empty();
            }
        }
        String host = DOCKER_HUB;
        String path = rest;
        int slash = rest.indexOf('/');
        if (slash > 0) {
            String first = rest.substring(0, slash);
            if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
                if (!HOST.matcher(first).matches()) {
                    return Optional.empty();
                }
                host = first;
                path = rest.substring(slash + 1);
            }
        }
        for (String c : path.split("/", -1)) {
            if (!COMPONENT.matcher(c).matches()) {
                return Optional.empty();
            }
        }
        if (host.equals(DOCKER_HUB) && !path.contains("/")) {
            path = "library/" + path;
        }
        if (tag == null && digest == null) {
            tag = "latest";
        }
        return Optional.of(new ImageName(host, path, tag, digest));
    }

    /** {@code host/path}: the repository. */
    public String repository() {
        return host + "/" + path;
    }

    /** The fully qualified reference, as containerd names the image and as its errors print it. */
    public String normalized() {
        return repository() + (tag == null ? "" : ":" + tag) + (digest == null ? "" : "@" + digest);
    }

    /**
     * Whether the API server defaults {@code imagePullPolicy} to {@code Always}: the tag is {@code
     * latest} (or none) and there is no digest.
     */
    public static String defaultPullPolicy(String image) {
        return parse(image)
                .map(
                        n ->
                                n.digest() == null && "latest".equals(n.tag())
                                        ? "Always"
                                        : "IfNotPresent")
                .orElse("IfNotPresent");
    }
}
