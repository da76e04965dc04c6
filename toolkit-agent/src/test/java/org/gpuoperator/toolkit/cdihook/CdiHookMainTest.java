package org.gpuoperator.toolkit.cdihook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hook's command line on a real directory as the container root, state given as a file. */
class CdiHookMainTest {

    @TempDir Path dir;
    Path bundle;
    Path root;
    Path state;
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void bundle() throws Exception {
        bundle = Files.createDirectories(dir.resolve("bundle"));
        root = Files.createDirectories(bundle.resolve("rootfs"));
        Files.writeString(bundle.resolve("config.json"), "{\"root\":{\"path\":\"rootfs\"}}");
        state = dir.resolve("state.json");
        Files.writeString(
                state, "{\"id\":\"c\",\"status\":\"creating\",\"bundle\":\"" + bundle + "\"}");
    }

    int hook(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--container-spec", state.toString()));
        return CdiHookMain.run(
                all.toArray(String[]::new),
                new ByteArrayInputStream(new byte[0]),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void createSymlinksMakesLinksInTheRootKeepsTheSameAndReplacesOthers() throws Exception {
        Files.createDirectories(root.resolve("usr/lib"));
        Files.createSymbolicLink(root.resolve("lib"), Path.of("usr/lib"));
        // an image's absolute link: must not lead out of the root
        Files.createSymbolicLink(root.resolve("opt"), Path.of("/usr/lib"));
        Files.createSymbolicLink(root.resolve("usr/lib/libnvidia-ml.so.1"), Path.of("old.so"));

        String[] args = {
            "create-symlinks",
            "--link",
            "libcuda.so.535.1::/lib/nvidia/libcuda.so.1",
            "--link",
            "libnvidia-ml.so.535.1::/usr/lib/libnvidia-ml.so.1",
            "--link",
            "libcuda.so.1::/opt/libcuda.so"
        };
        assertThat(hook(args)).as(err.toString()).isZero();

        assertThat(Files.readSymbolicLink(root.resolve("usr/lib/nvidia/libcuda.so.1")))
                .isEqualTo(Path.of("libcuda.so.535.1"));
        assertThat(Files.readSymbolicLink(root.resolve("usr/lib/libnvidia-ml.so.1")))
                .isEqualTo(Path.of("libnvidia-ml.so.535.1"));
        assertThat(Files.readSymbolicLink(root.resolve("usr/lib/libcuda.so")))
                .isEqualTo(Path.of("libcuda.so.1"));
        assertThat(Path.of("/usr/lib/libcuda.so")).doesNotExist();

        Object inode = key(root.resolve("usr/lib/nvidia/libcuda.so.1"));
        assertThat(hook(args)).isZero();
        assertThat(key(root.resolve("usr/lib/nvidia/libcuda.so.1"))).as("kept").isEqualTo(inode);
    }

    @Test
    void updateLdcacheWritesItsConfigAndTheHostsLdconfigCachesTheFolder() throws Exception {
        Path ldconfig = Path.of(HookCommand.DEFAULT_LDCONFIG);
        Path lib = Path.of("/lib/x86_64-linux-gnu/libdl.so.2");
        assumeTrue(Files.isExecutable(ldconfig) && Files.exists(lib), "no /sbin/ldconfig or libdl");
        Files.createDirectories(root.resolve("etc"));
        Files.writeString(root.resolve("etc/ld.so.conf"), "include /etc/ld.so.conf.d/*.conf\n");
        Files.createDirectories(root.resolve("opt/nv"));
        Files.copy(lib, root.resolve("opt/nv/libdl.so.2"));

        assertThat(
                        hook(
                                "update-ldcache",
                                "--folder",
                                "/opt/nv",
                                "--folder",
                                "/usr/lib/x86_64-linux-gnu"))
                .as(err.toString())
                .isZero();

        Path conf = root.resolve("etc/ld.so.conf.d/00-nvcr-cdi-hook.conf");
        assertThat(conf).hasContent("/opt/nv\n/usr/lib/x86_64-linux-gnu\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(conf)))
                .isEqualTo("rw-r--r--");
        String cache =
                new String(
                        Files.readAllBytes(root.resolve("etc/ld.so.cache")),
                        StandardCharsets.ISO_8859_1);
        assertThat(cache).contains("/opt/nv/libdl.so.2");
        assertThat(Path.of("/etc/ld.so.conf.d/00-nvcr-cdi-hook.conf")).doesNotExist();
    }

    @Test
    void enableCudaCompatConfiguresTheCompatFolderOnlyForANewerCompatDriver() throws Exception {
        Files.createDirectories(root.resolve("usr/local/cuda/compat"));
        Files.writeString(root.resolve("usr/local/cuda/compat/libcuda.so.555.42.06"), "");
        Path conf = root.resolve("etc/ld.so.conf.d/00-compat-cdi-hook.conf");

        assertThat(hook("enable-cuda-compat", "--host-driver-version=560.35.03")).isZero();
        assertThat(conf).doesNotExist();

        assertThat(hook("enable-cuda-compat", "--host-driver-version=535.309.01"))
                .as(err.toString())
                .isZero();
        assertThat(conf).hasContent("/usr/local/cuda/compat\n");
    }

    @Test
    void withoutTheDriversParamsFileDisableDeviceNodeModificationDoesNothing() throws Exception {
        assertThat(hook("disable-device-node-modification")).as(err.toString()).isZero();
        try (var files = Files.list(root)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void disableDeviceNodeModificationBindsAReadOnlyCopyOverTheParams() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")) && Files.isExecutable(UNSHARE),
                "needs root and unshare (a private mount namespace): test skipped, not passed");
        Path params = Files.createDirectories(root.resolve("proc/driver/nvidia")).resolve("params");
        Files.writeString(params, "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\n");
        Path hook = RealContainerCdiTest.launcher(dir.resolve("bin"));

        // in a mount namespace of its own, as runc runs the hook: the host's mounts stay as they
        // are
        ProcessBuilder pb =
                new ProcessBuilder(
                        UNSHARE.toString(),
                        "--mount",
                        "--propagation",
                        "private",
                        "sh",
                        "-c",
                        "\"$0\" disable-device-node-modification --container-spec \"$1\" && cat \"$2\""
                                + " && if echo x > \"$2\"; then echo writable; fi",
                        hook.toString(),
                        state.toString(),
                        params.toString());
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();

        assertThat(out)
                .startsWith("ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 0\n")
                .doesNotContain("writable");
        assertThat(params)
                .as("the file itself is untouched: the copy is mounted over it")
                .hasContent("ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\n");
    }

    static final Path UNSHARE = Path.of("/usr/bin/unshare");

    @Test
    void errorsAreOneLineExitOneAndBadCommandLinesExitTwo() throws Exception {
        Files.writeString(bundle.resolve("config.json"), "{}");
        assertThat(hook("disable-device-node-modification")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "nvidia-cdi-hook: disable-device-node-modification: "
                                + bundle
                                + "/config.json: no root.path\n");
        err.reset();
        assertThat(hook("chmod")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("nvidia-cdi-hook: unknown command 'chmod'\n");
    }

    @Test
    void theLauncherExecsThisClassWithTheArguments() {
        assertThat(CdiHookMain.launcher("/opt/java/bin/java", "/app/lib/*:/app/it's.jar"))
                .isEqualTo(
                        "#!/bin/sh\n"
                                + "# toolkit-agent's nvidia-cdi-hook, where NVIDIA's is not installed\n"
                                + "exec '/opt/java/bin/java' -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
                                + " -Xshare:auto --enable-native-access=ALL-UNNAMED"
                                + " -cp '/app/lib/*:/app/it'\\''s.jar'"
                                + " org.gpuoperator.toolkit.cdihook.CdiHookMain \"$@\"\n");
    }

    static Object key(Path p) throws Exception {
        return Files.readAttributes(
                        p, BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                .fileKey();
    }
}
