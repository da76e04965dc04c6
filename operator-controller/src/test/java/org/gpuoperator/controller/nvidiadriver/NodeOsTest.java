package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeOsTest {

    @Test
    void nfdLabelsWinOverTheKubeletsNodeInfo() {
        var node =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("n1")
                        .withLabels(
                                Map.of(
                                        NodeOs.NFD_OS_ID, "rhel",
                                        NodeOs.NFD_OS_VERSION, "9.4",
                                        NodeOs.NFD_KERNEL, "5.14.0-427.el9.x86_64"))
                        .endMetadata()
                        .withNewStatus()
                        .withNewNodeInfo()
                        .withOsImage("Ubuntu 22.04.4 LTS")
                        .withKernelVersion("5.15.0-105-generic")
                        .endNodeInfo()
                        .endStatus()
                        .build();

        assertThat(NodeOs.of(node)).isEqualTo(new NodeOs("rhel9.4", "5.14.0-427.el9.x86_64"));
    }

    @Test
    void withoutNfdTheOsImageAndKernelVersionOfNodeInfo() {
        var node =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName("n1")
                        .endMetadata()
                        .withNewStatus()
                        .withNewNodeInfo()
                        .withOsImage("Ubuntu 22.04.4 LTS")
                        .withKernelVersion("5.15.0-105-generic")
                        .endNodeInfo()
                        .endStatus()
                        .build();

        assertThat(NodeOs.of(node)).isEqualTo(new NodeOs("ubuntu22.04", "5.15.0-105-generic"));
    }

    @Test
    void osImagesOfTheCommonDistributions() {
        assertThat(NodeOs.fromImage("Ubuntu 24.04 LTS")).isEqualTo("ubuntu24.04");
        assertThat(NodeOs.fromImage("Red Hat Enterprise Linux 9.4 (Plow)")).isEqualTo("rhel9.4");
        assertThat(NodeOs.fromImage("Red Hat Enterprise Linux CoreOS 415.92.202402201450-0 (Plow)"))
                .isEqualTo("rhcos415.92");
        assertThat(NodeOs.fromImage("Debian GNU/Linux 12 (bookworm)")).isEqualTo("debian12");
        assertThat(NodeOs.fromImage("Amazon Linux 2023.4.20240528")).isEqualTo("amzn2023.4");
    }

    @Test
    void nothingKnownIsUnknown() {
        assertThat(NodeOs.of(Map.of(), null, " ")).isEqualTo(new NodeOs("unknown", "unknown"));
        // half of NFD's pair is not enough
        assertThat(NodeOs.of(Map.of(NodeOs.NFD_OS_ID, "ubuntu"), "Ubuntu 20.04.6 LTS", "5.4.0"))
                .isEqualTo(new NodeOs("ubuntu20.04", "5.4.0"));
    }
}
