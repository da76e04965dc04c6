package org.gpuoperator.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StartWarmUpTest {

    /** The file type bits of {@code /dev/null}'s mode. */
    private static int fileType() throws Exception {
        return (Integer)
                        Files.getAttribute(
                                StartWarmUp.NOWHERE, "unix:mode", LinkOption.NOFOLLOW_LINKS)
                & 0170000;
    }

    @Test
    void devNullIsStillTheCharacterDeviceAfterward() throws Exception {
        // the agent runs as root: a warm-up that served (replacing the socket file) would
        // delete /dev/null
        assertThat(fileType()).isEqualTo(0020000);
        // refused at connect, not left to its deadline: a warm-up that waited would hold its
        // event loop past the agent's start
        assertThat(StartWarmUp.run()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(fileType()).isEqualTo(0020000);
    }

    @Test
    void theThreadIsADaemonThatEndsByItself() throws Exception {
        Thread t = StartWarmUp.start();
        assertThat(t.isDaemon()).isTrue();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(t.isAlive()).isFalse();
    }
}
