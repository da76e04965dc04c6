package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinuxLeftoverHostTest {

    @Test
    void mountinfoEscapesAreRead() {
        assertThat(LinuxLeftoverHost.unescape("/tmp/a\\040b\\134c")).isEqualTo("/tmp/a b\\c");
        assertThat(LinuxLeftoverHost.unescape("/tmp/plain")).isEqualTo("/tmp/plain");
    }

    @Test
    void aDirIsDeletedWithoutFollowingItsLinks(@TempDir Path tmp) throws Exception {
        Path outside = Files.writeString(tmp.resolve("outside"), "keep");
        Path dir = tmp.resolve("gpuop-x");
        Files.createDirectories(dir.resolve("a/b"));
        Files.writeString(dir.resolve("a/b/f"), "x");
        Files.createSymbolicLink(dir.resolve("a/link"), outside);
        Files.createSymbolicLink(dir.resolve("dirlink"), tmp);

        new LinuxLeftoverHost().deleteDir(dir);
        new LinuxLeftoverHost().deleteDir(dir); // gone already: nothing to do

        assertThat(dir).doesNotExist();
        assertThat(outside).hasContent("keep");
    }

    @Test
    void theSnapshotSeesThisJvmAndItsWorkDirAsAlive() throws Exception {
        Path dir = Files.createTempDirectory(LeftoverRuns.TMP, LeftoverRuns.PREFIX + "test-");
        LinuxLeftoverHost host = new LinuxLeftoverHost();
        try {
            RunOwner.record(dir);
            LeftoverRuns.Snapshot s = host.snapshot();
            assertThat(s.processes())
                    .anySatisfy(
                            p -> {
                                assertThat(p.pid()).isEqualTo(ProcessHandle.current().pid());
                                assertThat(p.argv()).isNotEmpty();
                            });
            assertThat(s.dirs())
                    .anySatisfy(
                            d -> {
                                assertThat(d.dir()).isEqualTo(dir);
                                assertThat(d.owner().pid())
                                        .isEqualTo(ProcessHandle.current().pid());
                                assertThat(d.ownerAlive()).isTrue();
                            });
            assertThat(LeftoverRuns.plan(s).dirs()).doesNotContain(dir);
        } finally {
            host.release();
            host.deleteDir(dir);
        }
    }
}
