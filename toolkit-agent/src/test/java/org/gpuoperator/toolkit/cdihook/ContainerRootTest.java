package org.gpuoperator.toolkit.cdihook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContainerRootTest {

    static final String STATE =
            "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"status\":\"creating\",\"pid\":1,"
                    + "\"bundle\":\"/run/containerd/io.containerd.runtime.v2.task/k8s.io/c\"}";

    @Test
    void theRootIsTheConfigsRootPathRelativeToTheBundleOrAbsolute() {
        String bundle = ContainerRoot.bundle(STATE);
        assertThat(bundle).isEqualTo("/run/containerd/io.containerd.runtime.v2.task/k8s.io/c");
        assertThat(ContainerRoot.rootPath(bundle, "{\"root\":{\"path\":\"rootfs\"}}"))
                .isEqualTo(bundle + "/rootfs");
        assertThat(ContainerRoot.rootPath(bundle, "{\"root\":{\"path\":\"/var/x/rootfs/\"}}"))
                .isEqualTo("/var/x/rootfs");
    }

    @Test
    void aStateOrConfigWithoutTheirFieldsIsAnError() {
        assertThatThrownBy(() -> ContainerRoot.bundle("{\"id\":\"c\"}"))
                .hasMessage("container state: no bundle");
        assertThatThrownBy(() -> ContainerRoot.bundle("not json"))
                .hasMessageStartingWith("container state: invalid JSON");
        assertThatThrownBy(() -> ContainerRoot.rootPath("/b", "{\"process\":{}}"))
                .hasMessage("/b/config.json: no root.path");
        // the hooks write into the root: never the host's own
        assertThatThrownBy(() -> ContainerRoot.rootPath("/b", "{\"root\":{\"path\":\"/\"}}"))
                .hasMessage("/b/config.json: root.path is the host's root");
    }

    @Test
    void pathsResolveInsideTheRootWhateverTheLinksSay() {
        Map<String, String> links =
                Map.of(
                        "/lib", "usr/lib", // merged /usr, relative
                        "/usr/lib/escape", "/../../etc", // absolute and climbing out
                        "/usr/lib/x/libcuda.so.1", "libcuda.so.535",
                        "/loop", "/loop");
        ContainerRoot.Links view = p -> Optional.ofNullable(links.get(p));

        assertThat(ContainerRoot.resolve("/lib/x/libcuda.so.1", false, view))
                .isEqualTo("/usr/lib/x/libcuda.so.1");
        assertThat(ContainerRoot.resolve("/lib/x/libcuda.so.1", true, view))
                .isEqualTo("/usr/lib/x/libcuda.so.535");
        assertThat(ContainerRoot.resolve("/lib/escape/ld.so.conf.d", true, view))
                .isEqualTo("/etc/ld.so.conf.d");
        assertThat(ContainerRoot.resolve("/a/../../b/./c", true, view)).isEqualTo("/b/c");
        assertThatThrownBy(() -> ContainerRoot.resolve("/loop/x", true, view))
                .hasMessage("/loop/x: too many levels of symbolic links");
    }
}
