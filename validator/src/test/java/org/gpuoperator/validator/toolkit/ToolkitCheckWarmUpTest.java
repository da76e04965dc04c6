package org.gpuoperator.validator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.kubelet.cri.CriClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolkitCheckWarmUpTest {

    @TempDir Path dir;

    @Test
    void theCannedAnswerGoesThroughTheChecksOwnReadingOfHandlers() {
        // the warm-up swallows failures: a canned config the reader cannot read would leave the
        // JSON reading to the check without anything saying so
        assertThat(
                        RuntimeHandlers.names(
                                CriClient.warmUp(dir.resolve("cri.sock"), ToolkitCheck.WARM_UP_INFO)
                                        .getInfoMap()))
                .containsExactly("warm-up");
    }

    @Test
    void theWarmUpEndsByItselfAndTouchesNoSocket() throws Exception {
        Thread t = ToolkitCheck.warmUp(dir.resolve("cri.sock"));
        assertThat(t.isDaemon()).isTrue();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(Files.exists(dir.resolve("cri.sock"))).isFalse();
    }
}
