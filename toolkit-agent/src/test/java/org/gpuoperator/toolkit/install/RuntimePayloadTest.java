package org.gpuoperator.toolkit.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimePayloadTest {

    @TempDir Path dir;

    @Test
    void aJavaHomeIsMeasuredOnceAndThisProcessReadOnce() throws Exception {
        Path home = dir.resolve("java-home");
        Files.createDirectories(home.resolve("lib"));
        Files.write(home.resolve("lib/modules"), new byte[1000]);
        Files.write(home.resolve("release"), new byte[24]);
        RuntimePayload payload = new RuntimePayload(home, List.of());
        assertThat(payload.javaHomeBytes()).isEqualTo(1024);

        // a runtime does not change while a process runs: another payload of it, no second walk
        Files.write(home.resolve("lib/more"), new byte[5000]);
        assertThat(new RuntimePayload(home, List.of(dir)).javaHomeBytes()).isEqualTo(1024);

        assertThat(RuntimePayload.ofThisProcess()).isSameAs(RuntimePayload.ofThisProcess());
        assertThat(RuntimePayload.ofThisProcess().javaHome())
                .isEqualTo(Path.of(System.getProperty("java.home")));
    }
}
