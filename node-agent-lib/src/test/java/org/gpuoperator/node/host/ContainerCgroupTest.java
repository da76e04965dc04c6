package org.gpuoperator.node.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContainerCgroupTest {

    static final String POD_UID = "8d6c2f4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f";
    static final String CONTAINER_ID =
            "3f7a1c2b9d8e4f60a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e";

    @TempDir Path proc;

    private static String fixture(String name) throws IOException {
        try (InputStream in = ContainerCgroupTest.class.getResourceAsStream("/cgroup/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "v2-systemd-containerd",
                "v2-cgroupfs",
                "v1-cgroupfs-guaranteed",
                "v1-systemd-crio",
                "v2-kind-node",
                "v2-systemd-colon"
            })
    void everyDriverAndCgroupVersionNamesThePodAndTheContainer(String file) throws IOException {
        assertThat(ContainerCgroup.parse(fixture(file)))
                .contains(new ContainerCgroup(POD_UID, CONTAINER_ID));
    }

    @ParameterizedTest
    @ValueSource(strings = {"host-process", "pod-cgroup-only"})
    void aProcessOutsideAnyContainerHasNone(String file) throws IOException {
        assertThat(ContainerCgroup.parse(fixture(file))).isEmpty();
    }

    @Test
    void garbageHasNone() {
        assertThat(ContainerCgroup.parse("")).isEmpty();
        assertThat(ContainerCgroup.parse("no colons here\n::")).isEmpty();
        assertThat(ContainerCgroup.parse("0::/kubepods/podnot-a-uid/" + CONTAINER_ID)).isEmpty();
    }

    @Test
    void readsAProcessFileAndAnEndedProcessHasNone() throws IOException {
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("4242/cgroup"), fixture("v2-cgroupfs"));
        assertThat(ContainerCgroup.ofProcess(proc, 4242))
                .isEqualTo(Optional.of(new ContainerCgroup(POD_UID, CONTAINER_ID)));
        assertThat(ContainerCgroup.ofProcess(proc, 4243)).isEmpty();
    }
}
