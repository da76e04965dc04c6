package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CdiVersionsTest {

    private static CdiSpec spec(String kind, CdiSpec.Device d, CdiSpec.ContainerEdits edits) {
        return new CdiSpec("1.1.0", kind, Map.of(), List.of(d), edits);
    }

    private static CdiSpec.ContainerEdits nodes(CdiSpec.DeviceNode... n) {
        return new CdiSpec.ContainerEdits(List.of(), List.of(n), List.of(), List.of(), List.of());
    }

    @Test
    void eachFeatureNeedsItsVersion() {
        CdiSpec.Device plain = new CdiSpec.Device("gpu", CdiSpec.ContainerEdits.EMPTY);
        assertThat(CdiVersions.minimum(spec("v.com/c", plain, null))).isEqualTo("0.3.0");
        CdiSpec.ContainerEdits typedMount =
                new CdiSpec.ContainerEdits(
                        List.of(),
                        List.of(),
                        List.of(new CdiSpec.Mount("/a", "/b", "bind", List.of())),
                        List.of(),
                        List.of());
        assertThat(CdiVersions.minimum(spec("v.com/c", plain, typedMount))).isEqualTo("0.4.0");
        assertThat(CdiVersions.minimum(spec("v.com/c", new CdiSpec.Device("0", null), null)))
                .isEqualTo("0.5.0");
        CdiSpec.DeviceNode withHostPath =
                new CdiSpec.DeviceNode("/dev/x", "/dev/y", null, null, null, null, null, null);
        assertThat(CdiVersions.minimum(spec("v.com/c", plain, nodes(withHostPath))))
                .isEqualTo("0.5.0");
        assertThat(CdiVersions.minimum(spec("v.com/c.d", plain, null))).isEqualTo("0.6.0");
        assertThat(
                        CdiVersions.minimum(
                                spec(
                                        "v.com/c",
                                        new CdiSpec.Device("gpu", Map.of("a", "b"), null),
                                        null)))
                .isEqualTo("0.6.0");
        CdiSpec.ContainerEdits gids =
                new CdiSpec.ContainerEdits(
                        List.of(), List.of(), List.of(), List.of(), List.of(44L));
        assertThat(CdiVersions.minimum(spec("v.com/c", new CdiSpec.Device("0", null), gids)))
                .isEqualTo("0.7.0");
    }

    @Test
    void versionsCompareByReleaseOrder() {
        assertThat(CdiVersions.older("0.5.0", "0.6.0")).isTrue();
        assertThat(CdiVersions.older("v1.0.0", "0.8.0")).isFalse();
        assertThat(CdiVersions.known("0.9.0")).isFalse();
    }
}
