package org.gpuoperator.node.inventory.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedMigLayouts.Stamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedMigLayoutsStampTest {

    @TempDir Path host;

    @Test
    void stampsAreEqualUntilALayoutFileIsWritten() throws Exception {
        SimulatedMigLayouts layouts = new SimulatedMigLayouts(host);
        assertThat(layouts.stamp()).isEqualTo(Stamp.NONE);
        Files.createDirectories(layouts.directory());
        AtomicFiles.writeString(layouts.file(0), "enabled=false\n");
        Stamp first = layouts.stamp();
        assertThat(first.entries()).hasSize(1);
        assertThat(layouts.stamp()).isEqualTo(first).hasSameHashCodeAs(first);
        assertThat(first).isNotEqualTo(Stamp.NONE);

        AtomicFiles.writeString(layouts.file(0), "enabled=false\n"); // same bytes, new inode
        assertThat(layouts.stamp()).isNotEqualTo(first);
        Files.writeString(layouts.directory().resolve("gpu-0.tmp"), "x"); // not a layout
        Stamp second = layouts.stamp();
        AtomicFiles.writeString(layouts.file(1), "enabled=true\n");
        assertThat(layouts.stamp()).isNotEqualTo(second);
    }

    @Test
    void entriesDifferInAnyField() {
        FileTime t = FileTime.fromMillis(1_000);
        var e = new Stamp.Entry("gpu-0", "inode-1", t, 10);
        assertThat(e)
                .isEqualTo(new Stamp.Entry("gpu-0", "inode-1", FileTime.fromMillis(1_000), 10))
                .hasSameHashCodeAs(new Stamp.Entry("gpu-0", "inode-1", t, 10))
                .isNotEqualTo(new Stamp.Entry("gpu-1", "inode-1", t, 10))
                .isNotEqualTo(new Stamp.Entry("gpu-0", "inode-2", t, 10))
                .isNotEqualTo(new Stamp.Entry("gpu-0", null, t, 10))
                .isNotEqualTo(new Stamp.Entry("gpu-0", "inode-1", FileTime.fromMillis(2_000), 10))
                .isNotEqualTo(new Stamp.Entry("gpu-0", "inode-1", t, 11))
                .isNotEqualTo("gpu-0");
        assertThat(new Stamp.Entry("gpu-0", null, t, 10))
                .isEqualTo(new Stamp.Entry("gpu-0", null, t, 10));
        assertThat(new Stamp(List.of(e))).isEqualTo(new Stamp(List.of(e))).isNotEqualTo(Stamp.NONE);
    }
}
