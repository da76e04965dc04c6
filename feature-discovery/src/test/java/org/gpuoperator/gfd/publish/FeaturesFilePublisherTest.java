package org.gpuoperator.gfd.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeaturesFilePublisherTest {

    @TempDir Path dir;

    private static TreeMap<String, String> labels() {
        TreeMap<String, String> m = new TreeMap<>();
        m.put("nvidia.com/gpu.product", "Tesla-T4");
        m.put("nvidia.com/cuda.driver.rev", "");
        m.put("nvidia.com/gpu.count", "1");
        return m;
    }

    @Test
    void writesSortedKeyValueLinesReadableByNfd() throws Exception {
        Path file = dir.resolve("features.d/gfd");
        FeaturesFilePublisher p = new FeaturesFilePublisher(file, System.out);

        assertThat(p.publish(labels()).written()).isTrue();

        assertThat(Files.readString(file))
                .isEqualTo(
                        """
                nvidia.com/cuda.driver.rev=
                nvidia.com/gpu.count=1
                nvidia.com/gpu.product=Tesla-T4
                """);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-r--r--");
        try (var files = Files.list(file.getParent())) {
            assertThat(files).containsExactly(file); // no temp file left behind
        }
    }

    @Test
    void theSameLabelsAgainDoNotRewriteTheFile() throws Exception {
        Path file = dir.resolve("gfd");
        FeaturesFilePublisher p = new FeaturesFilePublisher(file, System.out);
        p.publish(labels());
        Object inode = Files.readAttributes(file, "unix:ino").get("ino");

        assertThat(p.publish(labels())).isEqualTo(LabelPublisher.Outcome.UNCHANGED);
        assertThat(Files.readAttributes(file, "unix:ino").get("ino")).isEqualTo(inode);

        TreeMap<String, String> changed = labels();
        changed.put("nvidia.com/gpu.count", "2");
        p.publish(changed);
        assertThat(Files.readString(file)).contains("nvidia.com/gpu.count=2\n");
    }

    @Test
    void removeDeletesTheFile() throws Exception {
        Path file = dir.resolve("gfd");
        FeaturesFilePublisher p = new FeaturesFilePublisher(file, System.out);
        p.publish(labels());
        p.remove();
        assertThat(file).doesNotExist();
        p.remove(); // idempotent
    }

    @Test
    void withoutAFileTheLinesGoToStandardOutput() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FeaturesFilePublisher(null, new PrintStream(out, true, StandardCharsets.UTF_8))
                .publish(labels());
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith("nvidia.com/cuda.driver.rev=\n")
                .hasLineCount(3);
    }
}
