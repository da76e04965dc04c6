package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which header trees a build for a given kernel uses: a pure choice over what exists. */
class KernelHeadersTest {

    static final String K = "6.1.0-57-amd64";

    static Optional<KernelHeaders> find(Map<String, String> existing) {
        return KernelHeaders.find(K, p -> Optional.ofNullable(existing.get(p)).map(Path::of));
    }

    @Test
    void debiansSplitHeadersGiveTheCommonTreeAsSourcesAndTheFlavourTreeAsOutput() {
        assertThat(
                        find(
                                Map.of(
                                        "/usr/src/linux-headers-" + K,
                                        "/h/usr/src/linux-headers-" + K,
                                        "/lib/modules/" + K + "/build",
                                        "/h/usr/src/linux-headers-" + K,
                                        "/lib/modules/" + K + "/source",
                                        "/h/usr/src/linux-headers-6.1.0-57-common")))
                .contains(
                        new KernelHeaders(
                                Path.of("/h/usr/src/linux-headers-6.1.0-57-common"),
                                Path.of("/h/usr/src/linux-headers-" + K)));
    }

    @Test
    void oneTreeServesAsBothAndUsrSrcWinsOverTheBuildLink() {
        assertThat(find(Map.of("/lib/modules/" + K + "/build", "/h/usr/src/kernels/" + K)))
                .contains(KernelHeaders.of(Path.of("/h/usr/src/kernels/" + K)));
        assertThat(
                        find(
                                Map.of(
                                        "/usr/src/linux-headers-" + K,
                                        "/h/a",
                                        "/lib/modules/" + K + "/build",
                                        "/h/b")))
                .contains(KernelHeaders.of(Path.of("/h/a")));
    }

    @Test
    void aSourceTreeAloneIsNoHeaders() {
        assertThat(find(Map.of("/lib/modules/" + K + "/source", "/h/common"))).isEmpty();
        assertThat(find(Map.of())).isEmpty();
    }

    @Test
    void theHeadersOfOneKernelAreLookedForUnderItsOwnRelease() {
        assertThat(KernelHeaders.outputPaths(K))
                .containsExactly("/usr/src/linux-headers-" + K, "/lib/modules/" + K + "/build");
        assertThat(KernelHeaders.sourcePath(K)).isEqualTo("/lib/modules/" + K + "/source");
        assertThat(KernelHeaders.packageName(K)).isEqualTo("linux-headers-" + K);
    }
}
