package org.gpuoperator.toolkit.cdihook;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Carries out a {@link HookCommand} on a container's root file system (a host path). As an OCI
 * {@code createContainer} hook it runs in the container's mount namespace before the root is
 * switched: the root holds the spec's mounts, and the host's files (ldconfig) are still at their
 * paths.
 */
public final class HookRunner {

    private final Path root;

    public HookRunner(Path root) {
        this.root = root;
    }

    public void run(HookCommand command) throws IOException, InterruptedException {
        switch (command) {
            case HookCommand.CreateSymlinks c -> createSymlinks(c);
            case HookCommand.UpdateLdcache c -> updateLdcache(c);
            case HookCommand.EnableCudaCompat c -> enableCudaCompat(c);
            case HookCommand.DisableDeviceNodeModification c -> disableDeviceNodeModification();
        }
    }

    /** What the root holds, by container path. */
    HookPlans.View view() {
        return new HookPlans.View() {
            @Override
            public Optional<String> readlink(String containerPath) {
                Path p = onHost(containerPath);
                if (!Files.isSymbolicLink(p)) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(Files.readSymbolicLink(p).toString());
                } catch (IOException e) {
                    return Optional.empty();
                }
            }

            @Override
            public boolean exists(String containerPath) {
                return Files.exists(onHost(containerPath), LinkOption.NOFOLLOW_LINKS);
            }
        };
    }

    private Path onHost(String containerPath) {
        return Path.of(root + containerPath);
    }

    private void createSymlinks(HookCommand.CreateSymlinks c) throws IOException {
        for (HookPlans.LinkStep s : HookPlans.links(c.links(), view())) {
            if (s.action() == HookPlans.LinkAction.KEEP) {
                continue;
            }
            Path link = onHost(s.path());
            if (s.action() == HookPlans.LinkAction.REPLACE) {
                Files.delete(link);
            }
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, Path.of(s.target()));
        }
    }

    private void updateLdcache(HookCommand.UpdateLdcache c)
            throws IOException, InterruptedException {
        if (!c.folders().isEmpty()) {
            writeConf(HookPlans.LDCACHE_CONF, HookPlans.ldConf(c.folders()));
        }
        String ldconfig = HookPlans.ldconfig(c.ldconfigPath(), p -> Files.isExecutable(Path.of(p)));
        List<String> cmd = HookPlans.ldconfigCommand(ldconfig, root.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(
                    String.join(" ", cmd)
                            + ": exit "
                            + p.exitValue()
                            + ": "
                            + new String(out, StandardCharsets.UTF_8).strip());
        }
    }

    private void enableCudaCompat(HookCommand.EnableCudaCompat c) throws IOException {
        Path dir = onHost(ContainerRoot.resolve(HookPlans.CUDA_COMPAT_DIR, true, view()));
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(f -> names.add(f.getFileName().toString()));
        }
        Optional<String> folder = HookPlans.cudaCompat(c.hostDriverVersion(), names);
        if (folder.isPresent()) {
            writeConf(HookPlans.COMPAT_CONF, HookPlans.ldConf(List.of(folder.get())));
        }
    }

    private void disableDeviceNodeModification() throws IOException {
        Path params = onHost(ContainerRoot.resolve(HookPlans.DRIVER_PARAMS, true, view()));
        if (!Files.isRegularFile(params)) {
            return; // no driver loaded: nothing the container could change
        }
        Optional<String> modified = HookPlans.params(Files.readString(params));
        if (modified.isEmpty()) {
            return;
        }
        // the mount keeps the copy alive after its name is gone: nothing is left behind
        Path copy = Files.createTempFile("nvidia-params-", "");
        try {
            Files.writeString(copy, modified.get());
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r--r--r--"));
            BindMount.readOnly(copy, params);
        } finally {
            Files.deleteIfExists(copy);
        }
    }

    /** A config file in the container's {@code /etc/ld.so.conf.d}, readable by every user. */
    private void writeConf(String containerPath, String text) throws IOException {
        String dir = ContainerRoot.resolve(HookPlans.LD_SO_CONF_D, true, view());
        Files.createDirectories(onHost(dir));
        Path file = onHost(dir + containerPath.substring(containerPath.lastIndexOf('/')));
        Files.deleteIfExists(file); // a symlink there is replaced, never followed
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }
}
