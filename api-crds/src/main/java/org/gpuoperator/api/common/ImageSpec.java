package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import java.util.Optional;

/**
 * Where an operand image comes from. Repository, image and version together, or image alone as a
 * full path.
 */
public abstract class ImageSpec extends UnknownFieldsPreserving {
    @JsonProperty("repository")
    @JsonPropertyDescription("Image registry and path, e.g. nvcr.io/nvidia.")
    private String repository;

    @JsonProperty("image")
    @JsonPropertyDescription(
            "Image name, e.g. driver; or a full image reference when repository and version are not set.")
    @Pattern("[a-zA-Z0-9\\-]+")
    private String image;

    @JsonProperty("version")
    @JsonPropertyDescription("Image tag, or a digest starting with sha256:.")
    private String version;

    @JsonProperty("imagePullPolicy")
    @JsonPropertyDescription("Image pull policy: Always, IfNotPresent or Never.")
    private ImagePullPolicy imagePullPolicy;

    @JsonProperty("imagePullSecrets")
    @JsonPropertyDescription("Names of the Secrets used to pull the image.")
    private List<String> imagePullSecrets;

    public String getRepository() {
        return repository;
    }

    public void setRepository(String repository) {
        this.repository = repository;
    }

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public String getVersion() {
        return version;
    }

    public void setVersion(String version) {
        this.version = version;
    }

    public ImagePullPolicy getImagePullPolicy() {
        return imagePullPolicy;
    }

    public void setImagePullPolicy(ImagePullPolicy imagePullPolicy) {
        this.imagePullPolicy = imagePullPolicy;
    }

    public List<String> getImagePullSecrets() {
        return imagePullSecrets;
    }

    public void setImagePullSecrets(List<String> imagePullSecrets) {
        this.imagePullSecrets = imagePullSecrets;
    }

    /**
     * The image reference these fields give, as upstream resolves it: {@code
     * repository/image:version}, {@code repository/image@sha256:...} when the version is a digest,
     * or {@code image} alone when it is a full path.
     *
     * @return the reference, or empty when repository, image or version is missing
     */
    public Optional<String> imagePath() {
        if (image == null || image.isBlank()) {
            return Optional.empty();
        }
        if (isBlank(repository) && isBlank(version)) {
            return isFullImagePath(image) ? Optional.of(image) : Optional.empty();
        }
        if (isBlank(repository) || isBlank(version)) {
            return Optional.empty();
        }
        String separator = version.startsWith("sha256:") ? "@" : ":";
        return Optional.of(repository + "/" + image + separator + version);
    }

    /** A full image reference names a registry or path and carries a tag or a digest. */
    public static boolean isFullImagePath(String image) {
        int slash = image.lastIndexOf('/');
        return slash > 0 && (image.indexOf('@') > slash || image.indexOf(':', slash) > slash);
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }
}
