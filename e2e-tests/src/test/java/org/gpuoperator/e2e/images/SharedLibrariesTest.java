package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SharedLibrariesTest {

    @Test
    void takesResolvedLibrariesAndTheLoaderButNotTheVdso() {
        String ldd =
                """
                \tlinux-vdso.so.1 (0x00007ffd1b9f3000)
                \tlibjli.so => /opt/jre/bin/../lib/libjli.so (0x00007f6c9d1e0000)
                \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f6c9cfff000)
                \t/lib64/ld-linux-x86-64.so.2 (0x00007f6c9d20b000)
                """;
        assertThat(SharedLibraries.parseLdd("java", ldd))
                .containsExactly(
                        "/lib/x86_64-linux-gnu/libc.so.6",
                        "/lib64/ld-linux-x86-64.so.2",
                        "/opt/jre/lib/libjli.so");
    }

    @Test
    void aMissingLibraryNamesTheFileAndTheLibrary() {
        assertThatThrownBy(
                        () ->
                                SharedLibraries.parseLdd(
                                        "/x/libjava.so", "\tlibjvm.so => not found\n"))
                .hasMessage("/x/libjava.so: needs libjvm.so, which ldd cannot find");
    }
}
