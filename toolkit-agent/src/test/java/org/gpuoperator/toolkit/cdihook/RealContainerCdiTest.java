package org.gpuoperator.toolkit.cdihook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.CdiYaml;
import org.gpuoperator.toolkit.CommandLineRun;
import org.gpuoperator.toolkit.containerd.ContainerdBinary;
import org.gpuoperator.toolkit.containerd.PrivateContainerd;
import org.gpuoperator.toolkit.simulated.OciSpecEdit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generated CDI spec in a real container: NVIDIA's real userspace (Debian's {@code nvidia-smi},
 * {@code libcuda1}, {@code libnvidia-ml1}, without a kernel module) reached through the spec's
 * mounts, device nodes and hooks (our {@code nvidia-cdi-hook}), the container run by runc through a
 * private containerd ({@code ctr run --config}). NVIDIA's code gets as far as the kernel driver:
 * the same answers it gives on this host. Without the hooks it does not find its libraries.
 */
class RealContainerCdiTest {

    static final Path SMI = Path.of("/usr/lib/nvidia/current/nvidia-smi");
    static final Path NVML = Path.of("/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1");
    static final Path LIBCUDA = Path.of("/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1");
    static final Path BUSYBOX = Path.of("/bin/busybox");
    static final Path LOADER = Path.of("/lib64/ld-linux-x86-64.so.2");
    static final String GLIBC_DIR = "/lib/x86_64-linux-gnu";
    static final List<String> GLIBC =
            List.of("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1");

    /** dlopens the soname as CUDA programs do, and reports cuInit's result. */
    static final String CUINIT_C =
            """
            #include <dlfcn.h>
            #include <stdio.h>
            int main(void) {
              void *h = dlopen("libcuda.so.1", RTLD_NOW);
              if (!h) { printf("dlopen failed: %s\\n", dlerror()); return 2; }
              int (*init)(unsigned int) = (int (*)(unsigned int)) dlsym(h, "cuInit");
              int (*name)(int, const char **) = (int (*)(int, const char **)) dlsym(h, "cuGetErrorName");
              int rc = init(0);
              const char *n = "?";
              name(rc, &n);
              printf("cuInit: %d %s\\n", rc, n);
              return 0;
            }
            """;

    Path dir;
    PrivateContainerd containerd;

    @AfterEach
    void tearDown() throws Exception {
        if (containerd != null) {
            containerd.close();
        }
        if (dir != null) {
            ContainerdBinary.run(List.of("rm", "-rf", dir.toString()));
        }
    }

    @Test
    void nvidiasUserspaceWorksInARuncContainerGivenTheSpecsEditsAndNotWithoutItsHooks()
            throws Exception {
        assumeTrue(
                ContainerdBinary.available() && ContainerdBinary.ctrAvailable(),
                ContainerdBinary.SKIP_MESSAGE);
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "a private containerd needs root: test skipped, not passed");
        for (String tool : List.of("runc", "gcc")) {
            assumeTrue(
                    ContainerdBinary.run(List.of("sh", "-c", "command -v " + tool)).exit() == 0,
                    tool + " is not installed: test skipped, not passed");
        }
        assumeTrue(
                Files.isExecutable(SMI) && Files.exists(NVML) && Files.exists(LIBCUDA),
                "Debian's nvidia-smi, libnvidia-ml1 and libcuda1 are not installed: test skipped,"
                        + " not passed");
        assumeTrue(
                Files.isExecutable(BUSYBOX) && Files.isExecutable(Path.of("/sbin/ldconfig")),
                "busybox-static or /sbin/ldconfig missing: test skipped, not passed");

        // short path: unix socket paths are limited to 107 bytes
        dir = Files.createTempDirectory(Path.of("/tmp"), "tkc-");
        Path hook = launcher(dir.resolve("bin"));
        String real = NVML.toRealPath().toString();
        String version = real.substring(real.indexOf(".so.") + 4);

        CommandLineRun generated =
                CommandLineRun.of(
                        "cdi",
                        "generate",
                        "--driver-root",
                        "/",
                        "--host-root",
                        "/",
                        "--gpu-source",
                        "simulated:l4-x2",
                        "--node-name",
                        "n",
                        "--driver-version",
                        version,
                        "--nvidia-cdi-hook-path",
                        hook.toString(),
                        "--format",
                        "json");
        assertThat(generated.exit()).as(generated.err()).isZero();
        CdiSpec spec = numbered(CdiYaml.parse(generated.out(), "cdi generate"));
        CdiSpec.ContainerEdits edits =
                CdiRegistry.of(Map.of("nvidia.json", spec)).resolve(List.of("nvidia.com/gpu=0"));
        List<String[]> links = links(edits);
        assertThat(links).as("create-symlinks names the sonames").isNotEmpty();
        assertThat(edits.hooks()).allMatch(h -> h.path().equals(hook.toString()));
        // every hook the spec asks for is one our nvidia-cdi-hook runs
        for (CdiSpec.Hook h : edits.hooks()) {
            HookCommand.parse(h.args().subList(1, h.args().size()));
        }
        System.out.println("hooks: " + edits.hooks().stream().map(h -> h.args().get(1)).toList());

        Path rootfsTemplate = rootfs(dir.resolve("template"));
        containerd = new PrivateContainerd(dir);
        Path config = dir.resolve("config.toml");
        Files.writeString(config, containerdConfig(dir));
        containerd.start(config);

        String script = script(links);
        ContainerdBinary.Run withHooks =
                run("with-hooks", copy(rootfsTemplate, dir.resolve("a")), edits, true, script);
        assertThat(withHooks.exit()).as(withHooks.err()).isZero();
        String out = withHooks.out();
        System.out.println("container with the spec's edits:\n" + out);
        assertThat(out)
                .contains(
                        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA"
                                + " driver")
                .doesNotContain("couldn't find libnvidia-ml.so")
                .contains("smi-exit=9")
                .contains("cuInit: 100 CUDA_ERROR_NO_DEVICE\ncuinit-exit=0")
                // device 0 only: its node and the control node
                // device 0 only: its node and the control node, as character devices
                .containsPattern("(?m)^c.* 195, +0 .* /dev/nvidia0$")
                .containsPattern("(?m)^c.* 195, +255 .* /dev/nvidiactl$")
                .doesNotContain("/dev/nvidia1");
        for (String[] l : links) {
            assertThat(out).contains("link " + l[1] + " -> " + l[0] + "\n");
        }
        assertThat(out).contains("/etc/ld.so.conf.d/00-nvcr-cdi-hook.conf");

        // the same edits without the hooks: NVIDIA's code cannot find its own libraries
        ContainerdBinary.Run noHooks =
                run("no-hooks", copy(rootfsTemplate, dir.resolve("b")), edits, false, script);
        assertThat(noHooks.exit()).as(noHooks.err()).isZero();
        System.out.println("container without the hooks:\n" + noHooks.out());
        assertThat(noHooks.out())
                .contains("NVIDIA-SMI couldn't find libnvidia-ml.so library in your system")
                .contains("smi-exit=12")
                .contains("dlopen failed: libcuda.so.1: cannot open shared object file")
                .contains("cuinit-exit=2")
                .doesNotContain("cuInit:")
                .doesNotContain("link " + links.getFirst()[1] + " -> ");
    }

    /** Runs the script in a container with the edits (and, if asked, the spec's hooks). */
    ContainerdBinary.Run run(
            String id, Path rootfs, CdiSpec.ContainerEdits edits, boolean hooks, String script)
            throws Exception {
        OciSpecEdit oci =
                OciSpecEdit.parse(ociConfig(rootfs, script).getBytes(StandardCharsets.UTF_8))
                        .withCdiEdits(edits);
        if (hooks) {
            oci = oci.withHooks(edits.hooks());
        }
        Path file = dir.resolve(id + ".json");
        Files.write(file, oci.toBytes());
        ContainerdBinary.Run r = containerd.ctr("run", "--rm", "--config", file.toString(), id);
        // ctr run can return before it has copied the last of a quickly exiting container's stdout
        // (seen on a loaded machine: only the first lines came back), so the script writes its
        // output into the rootfs, read here once the container is gone
        Path written = rootfs.resolve(OUTPUT.substring(1));
        String out = Files.exists(written) ? Files.readString(written) : r.out();
        return new ContainerdBinary.Run(r.exit(), out, r.err());
    }

    /** Where the script writes what it prints, in the container. */
    static final String OUTPUT = "/container-output.txt";

    /** What the container prints: its device nodes, the links, ld.so.conf.d, NVIDIA's answers. */
    static String script(List<String[]> links) {
        StringBuilder sb = new StringBuilder();
        sb.append("exec > ").append(OUTPUT).append(" 2>&1\n");
        sb.append("ls -l /dev/nvidia*\n");
        for (String[] l : links) {
            sb.append("[ -L ")
                    .append(l[1])
                    .append(" ] && echo \"link ")
                    .append(l[1])
                    .append(" -> $(readlink ")
                    .append(l[1])
                    .append(")\"\n");
        }
        sb.append("ls /etc/ld.so.conf.d/*\n");
        sb.append("nvidia-smi; echo smi-exit=$?\n");
        sb.append("cuinit; echo cuinit-exit=$?\n");
        return sb.toString();
    }

    /** The create-symlinks hook's links: {target, link}. */
    static List<String[]> links(CdiSpec.ContainerEdits edits) {
        List<String[]> out = new ArrayList<>();
        for (CdiSpec.Hook h : edits.hooks()) {
            if (h.args().size() > 1 && h.args().get(1).equals("create-symlinks")) {
                for (int i = 2; i + 1 < h.args().size(); i += 2) {
                    out.add(h.args().get(i + 1).split("::"));
                }
            }
        }
        return out;
    }

    /**
     * The spec as a GPU node's host would give it: the simulated GPUs' nodes get NVIDIA's major 195
     * and their minor, {@code /dev/nvidiactl} 195:255 (nothing is made in this host's /dev).
     */
    static CdiSpec numbered(CdiSpec spec) {
        List<CdiSpec.Device> devices =
                spec.devices().stream()
                        .map(
                                d ->
                                        new CdiSpec.Device(
                                                d.name(),
                                                d.annotations(),
                                                numbered(d.containerEdits())))
                        .toList();
        return new CdiSpec(
                spec.cdiVersion(),
                spec.kind(),
                spec.annotations(),
                devices,
                numbered(spec.containerEdits()));
    }

    static CdiSpec.ContainerEdits numbered(CdiSpec.ContainerEdits e) {
        List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
        for (CdiSpec.DeviceNode n : e.deviceNodes()) {
            if (n.major() != null) {
                nodes.add(n);
            } else if (n.path().equals("/dev/nvidiactl")) {
                nodes.add(CdiSpec.DeviceNode.charDevice(n.path(), 195, 255));
            } else if (n.path().matches("/dev/nvidia[0-9]+")) {
                nodes.add(
                        CdiSpec.DeviceNode.charDevice(
                                n.path(), 195, Long.parseLong(n.path().substring(11))));
            } else {
                throw new IllegalStateException("no numbers for " + n.path());
            }
        }
        return new CdiSpec.ContainerEdits(
                e.env(), nodes, e.mounts(), e.hooks(), e.additionalGids());
    }

    /** Our nvidia-cdi-hook: the launcher running this test's classes. */
    static Path launcher(Path bin) throws Exception {
        Files.createDirectories(bin);
        Path hook = bin.resolve("nvidia-cdi-hook");
        Files.writeString(
                hook,
                CdiHookMain.launcher(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        System.getProperty("java.class.path")));
        Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwxr-xr-x"));
        return hook;
    }

    /**
     * A minimal glibc image: static busybox, the host's loader and the glibc libraries NVIDIA's
     * binaries need, {@code /etc/ld.so.conf} as Debian has it, and a CUDA program compiled here.
     */
    static Path rootfs(Path root) throws Exception {
        Files.createDirectories(root.resolve("bin"));
        Files.copy(BUSYBOX, root.resolve("bin/busybox"));
        for (String applet : List.of("sh", "ls", "readlink")) {
            Files.createSymbolicLink(root.resolve("bin/" + applet), Path.of("busybox"));
        }
        Files.createDirectories(root.resolve("lib64"));
        Files.copy(LOADER, root.resolve("lib64/ld-linux-x86-64.so.2"));
        Path glibc = Files.createDirectories(root.resolve(GLIBC_DIR.substring(1)));
        for (String lib : GLIBC) {
            Files.copy(Path.of(GLIBC_DIR, lib), glibc.resolve(lib));
        }
        Files.createDirectories(root.resolve("etc/ld.so.conf.d"));
        Files.writeString(root.resolve("etc/ld.so.conf"), "include /etc/ld.so.conf.d/*.conf\n");
        Path source = root.getParent().resolve("cuinit.c");
        Files.writeString(source, CUINIT_C);
        ContainerdBinary.Run cc =
                ContainerdBinary.run(
                        List.of(
                                "gcc",
                                "-o",
                                root.resolve("bin/cuinit").toString(),
                                source.toString(),
                                "-ldl"));
        assertThat(cc.exit()).as(cc.err()).isZero();
        return root;
    }

    static Path copy(Path from, Path to) throws Exception {
        ContainerdBinary.Run cp =
                ContainerdBinary.run(List.of("cp", "-a", from.toString(), to.toString()));
        assertThat(cp.exit()).as(cp.err()).isZero();
        return to;
    }

    /** A plain OCI config for runc: the rootfs by absolute path, the script as the process. */
    static String ociConfig(Path rootfs, String script) {
        return """
                {"ociVersion":"1.0.2-dev",
                 "process":{"terminal":false,"user":{"uid":0,"gid":0},
                  "args":["/bin/sh","-c",%s],
                  "env":["PATH=/usr/bin:/usr/sbin:/bin"],"cwd":"/","noNewPrivileges":true},
                 "root":{"path":%s,"readonly":false},
                 "hostname":"cdi",
                 "mounts":[
                  {"destination":"/proc","type":"proc","source":"proc"},
                  {"destination":"/dev","type":"tmpfs","source":"tmpfs","options":["nosuid","strictatime","mode=755","size=65536k"]},
                  {"destination":"/dev/pts","type":"devpts","source":"devpts","options":["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620"]},
                  {"destination":"/sys","type":"sysfs","source":"sysfs","options":["nosuid","noexec","nodev","ro"]}],
                 "linux":{"resources":{"devices":[{"allow":false,"access":"rwm"}]},
                  "namespaces":[{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"}]}}
                """
                .formatted(json(script), json(rootfs.toString()));
    }

    static String json(String s) {
        StringBuilder sb = new StringBuilder();
        org.gpuoperator.node.agent.JsonStrings.quote(s, sb);
        return sb.toString();
    }

    /** Only what ctr needs: no CRI (faster start), everything under the test's directory. */
    static String containerdConfig(Path dir) {
        return """
                version = 2
                root = "%1$s/lib"
                state = "%1$s/run"
                disabled_plugins = ["io.containerd.grpc.v1.cri"]

                [grpc]
                  address = "%1$s/ctd.sock"

                [ttrpc]
                  address = "%1$s/ctd.sock.ttrpc"

                [debug]
                  address = "%1$s/debug.sock"
                """
                .formatted(dir);
    }
}
