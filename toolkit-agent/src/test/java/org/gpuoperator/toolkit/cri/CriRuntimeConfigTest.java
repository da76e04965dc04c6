package org.gpuoperator.toolkit.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Optional;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.junit.jupiter.api.Test;

class CriRuntimeConfigTest {

    /**
     * Shaped like containerd 1.6's verbose Status config: members of every JSON kind before and
     * after the runtimes, and decoys (another object's {@code runtimes}, the default runtime's
     * options) that must not be read as the handler.
     */
    private static final String CONTAINERD =
            """
            {"cni": {"binDir": "/opt/cni/bin", "runtimes": {"nvidia": {"options": {"BinaryName": "/decoy/cni"}}}},
             "registry": {"configPath": "", "mirrors": null, "auths": []},
             "containerd": {
               "snapshotter": "overlayfs",
               "defaultRuntimeName": "runc",
               "defaultRuntime": {"runtimeType": "", "options": {"BinaryName": "/decoy/default"}},
               "untrustedWorkloadRuntime": {"runtimeType": "", "options": null},
               "runtimes": {
                 "runc": {"runtimeType": "io.containerd.runc.v2", "runtimePath": "", "PodAnnotations": null,
                          "options": {"BinaryName": "", "Root": "", "SystemdCgroup": false, "NoPivotRoot": false},
                          "privileged_without_host_devices": false, "cniMaxConfNum": 0},
                 "kata": {"runtimeType": "io.containerd.kata.v2"},
                 "nvidia": {"runtimeType": "io.containerd.runc.v2",
                            "ContainerAnnotations": ["cdi.k8s.io/*"],
                            "options": {"CriuPath": "", "IoGid": 0, "ShimCgroup": "a \\"quoted\\" {brace}",
                                        "BinaryName": "/usr/local/nvidia/toolkit/nvidia-container-runtime",
                                        "SystemdCgroup": true},
                            "baseRuntimeSpec": ""}
               },
               "ignoreRdtNotEnabledErrors": false
             },
             "enableCDI": true,
             "cdiSpecDirs": ["/etc/cdi", "/var/run/cdi"]}
            """;

    private static StatusResponse status(String config) {
        return StatusResponse.newBuilder().putInfo("config", config).build();
    }

    @Test
    void readsTheNamedHandlerFromContainerdsRuntimesOnly() throws IOException {
        assertThat(CriRuntimeConfig.handler(status(CONTAINERD), "nvidia"))
                .contains(
                        new CriRuntimeConfig.Handler(
                                "io.containerd.runc.v2",
                                Optional.of("/usr/local/nvidia/toolkit/nvidia-container-runtime"),
                                Optional.of(true)));
        assertThat(CriRuntimeConfig.handler(status(CONTAINERD), "runc"))
                .contains(
                        new CriRuntimeConfig.Handler(
                                "io.containerd.runc.v2", Optional.of(""), Optional.of(false)));
    }

    @Test
    void aHandlerWithoutOptionsHasNoBinaryNameAndNoCgroupSetting() throws IOException {
        assertThat(CriRuntimeConfig.handler(status(CONTAINERD), "kata"))
                .contains(
                        new CriRuntimeConfig.Handler(
                                "io.containerd.kata.v2", Optional.empty(), Optional.empty()));
        assertThat(
                        CriRuntimeConfig.handler(
                                status(
                                        "{\"containerd\": {\"runtimes\": {\"nvidia\": {\"options\":"
                                                + " {\"BinaryName\": null, \"SystemdCgroup\":"
                                                + " \"true\"}}}}}"),
                                "nvidia"))
                .contains(new CriRuntimeConfig.Handler("", Optional.empty(), Optional.of(true)));
    }

    @Test
    void aHandlerContainerdDidNotLoadIsAbsent() throws IOException {
        assertThat(CriRuntimeConfig.handler(status(CONTAINERD), "nvidia-cdi")).isEmpty();
        assertThat(CriRuntimeConfig.handler(status("{\"containerd\": {}}"), "nvidia")).isEmpty();
        assertThat(CriRuntimeConfig.handler(status("{\"containerd\": null}"), "nvidia")).isEmpty();
        assertThat(
                        CriRuntimeConfig.handler(
                                status("{\"containerd\": {\"runtimes\": {\"nvidia\": \"x\"}}}"),
                                "nvidia"))
                .isEmpty();
    }

    @Test
    void readsTheDefaultRuntimeName() throws IOException {
        assertThat(CriRuntimeConfig.defaultRuntimeName(status(CONTAINERD))).isEqualTo("runc");
        assertThat(CriRuntimeConfig.defaultRuntimeName(StatusResponse.getDefaultInstance()))
                .isEmpty();
    }

    @Test
    void badConfigsGetAnErrorThatNamesWhatWasRead() {
        assertThatThrownBy(
                        () ->
                                CriRuntimeConfig.handler(
                                        StatusResponse.getDefaultInstance(), "nvidia"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no info[\"config\"]");
        assertThatThrownBy(
                        () ->
                                CriRuntimeConfig.handler(
                                        status("{\"containerd\": {runtimes: {}}}"), "nvidia"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("info[\"config\"] is not valid JSON");
        assertThatThrownBy(() -> CriRuntimeConfig.handler(status("{\"containerd\": {"), "nvidia"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("info[\"config\"] is not valid JSON");
        assertThatThrownBy(() -> CriRuntimeConfig.defaultRuntimeName(status("")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("info[\"config\"] is not valid JSON");
    }
}
