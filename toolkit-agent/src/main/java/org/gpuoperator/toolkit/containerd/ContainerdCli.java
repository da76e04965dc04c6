package org.gpuoperator.toolkit.containerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.apply.ExternalValidator;

/**
 * The containerd binary of the host, when reachable: its version, {@code config dump} of a file,
 * and the validator that asks containerd itself whether a candidate config loads. Runs through
 * {@code chroot <host-root>} in a container.
 */
public final class ContainerdCli implements ExternalValidator {

    private final Path hostRoot;
    private final String executable;

    public ContainerdCli(Path hostRoot, String executable) {
        this.hostRoot = hostRoot;
        this.executable = executable;
    }

    private boolean chrooted() {
        return !hostRoot.toAbsolutePath().normalize().toString().equals("/");
    }

    /** Whether the binary is there at all; without it every check here is skipped. */
    public boolean available() {
        return candidates().stream().anyMatch(Files::isExecutable);
    }

    private static final List<String> SEARCH_PATH =
            List.of("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin");

    /** Where the binary is looked for, as this process sees those paths. */
    private List<Path> candidates() {
        if (executable.startsWith("/")) {
            return List.of(hostRoot.resolve(executable.substring(1)));
        }
        return SEARCH_PATH.stream()
                .map(dir -> hostRoot.resolve(dir.substring(1)).resolve(executable))
                .toList();
    }

    /** Why validation cannot run: the places looked at, and what to do. */
    public String missingMessage() {
        return "containerd binary '"
                + executable
                + "' not found (looked at "
                + String.join(", ", candidates().stream().map(Path::toString).toList())
                + "): a new config cannot be validated with `containerd config dump`; mount the "
                + "host root (HOST_ROOT), set --containerd-executable (RUNTIME_EXECUTABLE_PATH), or "
                + "pass --skip-containerd-validation to write unvalidated configs";
    }

    public Optional<ContainerdVersion> version() {
        if (!available()) {
            return Optional.empty();
        }
        try {
            Result r = run(List.of("--version"));
            return r.exit == 0 ? ContainerdVersion.parse(r.out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code containerd --config F config dump}; F is a path on the host. */
    public Optional<String> dump(String hostConfigPath) {
        if (!available() || !Files.exists(hostRoot.resolve(hostConfigPath.substring(1)))) {
            return Optional.empty();
        }
        try {
            Result r = run(List.of("--config", hostConfigPath, "config", "dump"));
            return r.exit == 0 ? Optional.of(r.out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public void check(String hostPath, Path candidate) throws ConfigException {
        if (!available()) {
            throw new ConfigException(hostPath + ": " + missingMessage());
        }
        String arg = candidate.toAbsolutePath().toString();
        if (chrooted()) {
            Path rel =
                    hostRoot.toAbsolutePath()
                            .normalize()
                            .relativize(candidate.toAbsolutePath().normalize());
            arg = "/" + rel;
        }
        Result r;
        try {
            r = run(List.of("--config", arg, "config", "dump"));
        } catch (IOException e) {
            throw new ConfigException(
                    hostPath + ": cannot run containerd to validate: " + e.getMessage(), e);
        }
        if (r.exit != 0) {
            String msg = r.err.strip().replace(arg, hostPath);
            throw new ConfigException(hostPath + ": containerd rejects the new config: " + msg);
        }
    }

    private record Result(int exit, String out, String err) {}

    private Result run(List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (chrooted()) {
            cmd.add("chroot");
            cmd.add(hostRoot.toString());
        }
        cmd.add(executable);
        cmd.addAll(args);
        Path out = Files.createTempFile("containerd-", ".out");
        Path err = Files.createTempFile("containerd-", ".err");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": timed out");
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
