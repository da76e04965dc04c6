package org.gpuoperator.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import org.gpuoperator.api.common.ImageSpec;
import org.junit.jupiter.api.Test;

class ImageSpecTest {
    @Test
    void repositoryImageAndVersionMakeATaggedReference() {
        assertThat(image("nvcr.io/nvidia", "driver", "595.91.07").imagePath())
                .hasValue("nvcr.io/nvidia/driver:595.91.07");
    }

    @Test
    void digestVersionMakesADigestReference() {
        String digest = "sha256:" + "a".repeat(64);
        assertThat(image("nvcr.io/nvidia", "driver", digest).imagePath())
                .hasValue("nvcr.io/nvidia/driver@" + digest);
    }

    @Test
    void fullPathAloneIsUsedAsIs() {
        assertThat(image(null, "nvcr.io/nvidia/driver:595.91.07", null).imagePath())
                .hasValue("nvcr.io/nvidia/driver:595.91.07");
        assertThat(image(null, "localhost:5000/driver@sha256:abc", null).imagePath())
                .hasValue("localhost:5000/driver@sha256:abc");
    }

    @Test
    void incompleteReferencesResolveToNothing() {
        assertThat(image(null, "driver", null).imagePath()).isEmpty();
        assertThat(image("nvcr.io/nvidia", "driver", null).imagePath()).isEmpty();
        assertThat(image(null, "driver", "1.0").imagePath()).isEmpty();
        assertThat(image("nvcr.io/nvidia", null, "1.0").imagePath()).isEmpty();
    }

    @Test
    void fullPathNeedsARegistryOrPathAndATagOrDigest() {
        assertThat(ImageSpec.isFullImagePath("nvcr.io/nvidia/driver:1.0")).isTrue();
        assertThat(ImageSpec.isFullImagePath("localhost:5000/driver")).isFalse();
        assertThat(ImageSpec.isFullImagePath("driver:1.0")).isFalse();
        assertThat(ImageSpec.isFullImagePath("nvcr.io/nvidia/driver")).isFalse();
    }

    @Test
    void enabledFallsBackToTheOperandsDefault() {
        assertThat(new DriverSpec().isEnabled()).isTrue();
        assertThat(new NodeStatusExporterSpec().isEnabled()).isFalse();
        NodeStatusExporterSpec exporter = new NodeStatusExporterSpec();
        exporter.setEnabled(true);
        assertThat(exporter.isEnabled()).isTrue();
    }

    private static ImageSpec image(String repository, String image, String version) {
        DriverSpec spec = new DriverSpec();
        spec.setRepository(repository);
        spec.setImage(image);
        spec.setVersion(version);
        return spec;
    }
}
