package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunOwnerTest {

    @Test
    void theRecordReadsBackAndThisJvmIsAlive(@TempDir Path dir) throws Exception {
        RunOwner.record(dir);
        RunOwner owner = RunOwner.of(dir).orElseThrow();
        assertThat(owner.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(owner.alive()).isTrue();
        RunOwner.forget(dir);
        assertThat(RunOwner.of(dir)).isEmpty();
    }

    @Test
    void aReusedPidWithAnotherStartTimeIsNotTheOwner() {
        RunOwner me = RunOwner.current();
        RunOwner earlier = new RunOwner(me.pid(), me.start().minusSeconds(60));
        assertThat(earlier.alive()).isFalse();
        assertThat(earlier.is(me.pid(), me.start())).isFalse();
        assertThat(me.is(me.pid(), me.start().plusMillis(10))).isTrue();
    }

    @Test
    void noRecordOrAGarbledOneIsNoOwner(@TempDir Path dir) throws Exception {
        assertThat(RunOwner.of(dir)).isEmpty();
        Files.writeString(dir.resolve(RunOwner.FILE), "pid 12\n");
        assertThat(RunOwner.of(dir)).isEmpty();
        assertThat(RunOwner.parse("12 34")).contains(new RunOwner(12, Instant.ofEpochMilli(34)));
    }
}
