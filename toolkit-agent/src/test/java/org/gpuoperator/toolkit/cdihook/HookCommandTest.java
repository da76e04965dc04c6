package org.gpuoperator.toolkit.cdihook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class HookCommandTest {

    static HookCommand parse(String... args) throws HookCommand.UsageException {
        return HookCommand.parse(List.of(args));
    }

    @Test
    void createSymlinksTakesEachLinkOnceInOrderInBothFlagForms() throws Exception {
        assertThat(
                        parse(
                                "create-symlinks",
                                "--link",
                                "libcuda.so.535.1::/usr/lib/libcuda.so.1",
                                "--link=libcuda.so.1::/usr/lib/libcuda.so",
                                "--link",
                                "libcuda.so.535.1::/usr/lib/libcuda.so.1"))
                .isEqualTo(
                        new HookCommand.CreateSymlinks(
                                List.of(
                                        new HookCommand.Link(
                                                "libcuda.so.535.1", "/usr/lib/libcuda.so.1"),
                                        new HookCommand.Link(
                                                "libcuda.so.1", "/usr/lib/libcuda.so")),
                                null));
    }

    @Test
    void updateLdcacheHasNvidiasDefaultLdconfigAndTakesAnother() throws Exception {
        assertThat(parse("update-ldcache", "--folder", "/a", "--folder", "/b", "--folder", "/a"))
                .isEqualTo(
                        new HookCommand.UpdateLdcache(List.of("/a", "/b"), "/sbin/ldconfig", null));
        assertThat(parse("update-ldcache", "--ldconfig-path=/usr/sbin/ldconfig"))
                .isEqualTo(new HookCommand.UpdateLdcache(List.of(), "/usr/sbin/ldconfig", null));
    }

    @Test
    void theOtherCommandsAndAStateFile() throws Exception {
        assertThat(parse("enable-cuda-compat", "--host-driver-version=535.309.01"))
                .isEqualTo(new HookCommand.EnableCudaCompat("535.309.01", null));
        assertThat(parse("disable-device-node-modification", "--container-spec", "/s.json"))
                .isEqualTo(new HookCommand.DisableDeviceNodeModification("/s.json"));
        // "-" is stdin, as in NVIDIA's
        assertThat(parse("disable-device-node-modification", "--container-spec=-").containerSpec())
                .isNull();
    }

    @Test
    void badCommandLinesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> parse()).hasMessageStartingWith("no command");
        assertThatThrownBy(() -> parse("chmod", "--path", "/x"))
                .hasMessage("unknown command 'chmod'");
        assertThatThrownBy(() -> parse("create-symlinks", "--link", "only-one-part"))
                .hasMessage("create-symlinks: invalid --link 'only-one-part': want TARGET::LINK");
        assertThatThrownBy(() -> parse("create-symlinks", "--link", "a::b::c"))
                .hasMessageContaining("want TARGET::LINK");
        assertThatThrownBy(() -> parse("create-symlinks", "--link", "a::relative/b"))
                .hasMessageContaining("must be absolute");
        assertThatThrownBy(() -> parse("create-symlinks", "--folder", "/a"))
                .hasMessage("create-symlinks: unknown flag --folder");
        assertThatThrownBy(() -> parse("update-ldcache", "--folder"))
                .hasMessage("update-ldcache: --folder needs a value");
        assertThatThrownBy(() -> parse("update-ldcache", "--folder", "lib"))
                .hasMessageContaining("must be absolute");
        assertThatThrownBy(() -> parse("update-ldcache", "/a"))
                .hasMessage("update-ldcache: unexpected argument '/a'");
        assertThatThrownBy(() -> parse("update-ldcache", "--ldconfig-path="))
                .hasMessage("update-ldcache: --ldconfig-path is empty");
    }
}
