package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import org.gpuoperator.e2e.node.HostPathCheck.Kind;
import org.gpuoperator.e2e.node.HostPathCheck.Outcome;
import org.junit.jupiter.api.Test;

class HostPathCheckTest {

    @Test
    void typesAsTheKubeletChecksThem() {
        assertThat(HostPathCheck.decide("", "/x", Kind.MISSING)).isEqualTo(new Outcome.Mount());
        assertThat(HostPathCheck.decide(null, "/x", Kind.FILE)).isEqualTo(new Outcome.Mount());
        assertThat(HostPathCheck.decide("Directory", "/x", Kind.DIRECTORY))
                .isEqualTo(new Outcome.Mount());
        assertThat(HostPathCheck.decide("Directory", "/opt/missing", Kind.MISSING))
                .isEqualTo(
                        new Outcome.Fail(
                                "hostPath type check failed: /opt/missing is not a directory"));
        assertThat(HostPathCheck.decide("Directory", "/f", Kind.FILE))
                .isEqualTo(new Outcome.Fail("hostPath type check failed: /f is not a directory"));
        assertThat(HostPathCheck.decide("DirectoryOrCreate", "/x", Kind.MISSING))
                .isEqualTo(new Outcome.CreateDirectory());
        assertThat(HostPathCheck.decide("DirectoryOrCreate", "/x", Kind.FILE))
                .isEqualTo(new Outcome.Fail("hostPath type check failed: /x is not a directory"));
        assertThat(HostPathCheck.decide("FileOrCreate", "/x", Kind.MISSING))
                .isEqualTo(new Outcome.CreateFile());
        assertThat(HostPathCheck.decide("File", "/x", Kind.DIRECTORY))
                .isEqualTo(new Outcome.Fail("hostPath type check failed: /x is not a file"));
        assertThat(HostPathCheck.decide("Socket", "/s", Kind.FILE))
                .isEqualTo(new Outcome.Fail("hostPath type check failed: /s is not a socket file"));
        assertThat(HostPathCheck.decide("Socket", "/s", Kind.SOCKET))
                .isEqualTo(new Outcome.Mount());
        assertThat(HostPathCheck.decide("CharDevice", "/dev/nvidia0", Kind.MISSING))
                .isEqualTo(
                        new Outcome.Fail(
                                "hostPath type check failed: /dev/nvidia0 is not a character device"));
        assertThat(HostPathCheck.decide("CharDevice", "/dev/null", Kind.CHAR_DEVICE))
                .isEqualTo(new Outcome.Mount());
    }

    @Test
    void kindOfRealPaths() {
        assertThat(HostPathCheck.kindOf(java.nio.file.Path.of("/dev/null")))
                .isEqualTo(Kind.CHAR_DEVICE);
        assertThat(HostPathCheck.kindOf(java.nio.file.Path.of("/tmp"))).isEqualTo(Kind.DIRECTORY);
        assertThat(HostPathCheck.kindOf(java.nio.file.Path.of("/no/such/path")))
                .isEqualTo(Kind.MISSING);
    }
}
