package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecStreamTest {

    @Test
    void everyCommandParameterIsOneArgumentInOrderAndDecoded() {
        ExecStream.Request r =
                ExecStream.Request.parse(
                        "command=sh&command=-c&command=echo+out%3B+exit+3&container=main"
                                + "&stdout=true&stderr=true");
        assertThat(r.command()).containsExactly("sh", "-c", "echo out; exit 3");
        assertThat(r.container()).isEqualTo("main");
        assertThat(r.stdout()).isTrue();
        assertThat(r.stderr()).isTrue();
        assertThat(r.stdin()).isFalse();
        assertThat(r.tty()).isFalse();
    }

    @Test
    void noContainerAndNoQueryAreNullAndEmpty() {
        ExecStream.Request r = ExecStream.Request.parse(null);
        assertThat(r.command()).isEmpty();
        assertThat(r.container()).isNull();
        assertThat(ExecStream.Request.parse("container=&stdin=1").container()).isNull();
        assertThat(ExecStream.Request.parse("container=&stdin=1").stdin()).isTrue();
    }

    @Test
    void framesStartWithTheChannelAndSplitLongOutput() {
        List<byte[]> frames = ExecStream.frames(ExecStream.STDERR, "err\n".getBytes());
        assertThat(frames).hasSize(1);
        assertThat(ExecStream.channel(frames.getFirst())).isEqualTo(2);
        assertThat(new String(ExecStream.payload(frames.getFirst()), StandardCharsets.UTF_8))
                .isEqualTo("err\n");
        assertThat(ExecStream.frames(ExecStream.STDOUT, new byte[0])).isEmpty();

        byte[] big = new byte[ExecStream.CHUNK * 2 + 5];
        big[ExecStream.CHUNK] = 7;
        List<byte[]> split = ExecStream.frames(ExecStream.STDOUT, big);
        assertThat(split).hasSize(3);
        assertThat(split).allSatisfy(m -> assertThat(ExecStream.channel(m)).isEqualTo(1));
        assertThat(split.get(1)[1]).isEqualTo((byte) 7);
        assertThat(split.get(2)).hasSize(6);
        assertThatThrownBy(() -> ExecStream.channel(new byte[0]))
                .hasMessageContaining("channel byte");
    }

    @Test
    void exitZeroIsSuccessAndOtherCodesTheKubeletsNonZeroExitCodeStatus() {
        assertThat(ExecStream.status(0, List.of("true")))
                .isEqualTo(Map.of("metadata", Map.of(), "status", "Success"));
        Map<String, Object> s = ExecStream.status(3, List.of("sh", "-c", "exit 3"));
        assertThat(s)
                .containsEntry("status", "Failure")
                .containsEntry("reason", "NonZeroExitCode")
                .containsEntry(
                        "message",
                        "command terminated with non-zero exit code: error executing command"
                                + " [sh -c exit 3], exit code 3")
                .containsEntry(
                        "details",
                        Map.of("causes", List.of(Map.of("reason", "ExitCode", "message", "3"))));
    }

    @Test
    void theStatusFrameIsJsonOnTheErrorChannel() {
        byte[] m = ExecStream.statusFrame(ExecStream.status(0, List.of("true")));
        assertThat(ExecStream.channel(m)).isEqualTo(3);
        assertThat(Json.parse(new String(ExecStream.payload(m), StandardCharsets.UTF_8)))
                .containsEntry("status", "Success");
    }
}
