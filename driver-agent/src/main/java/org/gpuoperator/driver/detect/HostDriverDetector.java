package org.gpuoperator.driver.detect;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.driver.host.CommandFailedException;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.NvidiaProcFs;

/**
 * Finds a driver installed on the host itself (distro packages, a cloud image): the kernel reports
 * a loaded nvidia module in {@code /proc/driver/nvidia/version} and the host's own {@code
 * nvidia-smi}, run under the host root, succeeds. Then this agent installs nothing.
 */
public final class HostDriverDetector {

    /** Where hosts keep nvidia-smi; the first regular, non-empty, executable one is used. */
    public static final List<String> NVIDIA_SMI_PATHS =
            List.of(
                    "/usr/bin/nvidia-smi",
                    "/usr/sbin/nvidia-smi",
                    "/usr/local/bin/nvidia-smi",
                    "/bin/nvidia-smi",
                    "/sbin/nvidia-smi",
                    "/usr/local/nvidia/bin/nvidia-smi");

    static final Duration NVIDIA_SMI_TIMEOUT = Duration.ofSeconds(60);

    /**
     * The outcome.
     *
     * @param present whether a working host driver was found
     * @param version the loaded module's version, when one is loaded
     * @param nvidiaSmi the host path of the nvidia-smi that answered
     * @param kernelGpus GPUs the module bound
     * @param reason why not, when absent
     */
    public record HostDriver(
            boolean present, String version, String nvidiaSmi, int kernelGpus, String reason) {
        static HostDriver absent(String version, String reason) {
            return new HostDriver(false, version, null, 0, reason);
        }
    }

    private final HostRoot host;
    private final HostCommands commands;
    private final NvidiaProcFs proc;
    private final Path ownDriverRoot;

    /**
     * @param ownDriverRoot this agent's exposed driver root: when it is mounted, the loaded module
     *     is ours, not the host's
     */
    public HostDriverDetector(HostRoot host, HostCommands commands, Path ownDriverRoot) {
        this.host = host;
        this.commands = commands;
        this.proc = new NvidiaProcFs(host);
        this.ownDriverRoot = ownDriverRoot;
    }

    public HostDriver detect() {
        Optional<String> version = proc.loadedDriverVersion();
        if (version.isEmpty()) {
            return HostDriver.absent(
                    null,
                    "no NVIDIA kernel module loaded ("
                            + host.path(NvidiaProcFs.VERSION_FILE)
                            + " is absent)");
        }
        if (ownDriverRoot != null
                && commands.run(
                                List.of("mountpoint", "-q", ownDriverRoot.toString()),
                                Duration.ofSeconds(10))
                        .succeeded()) {
            return HostDriver.absent(
                    version.get(),
                    "the loaded driver is this agent's container driver ("
                            + ownDriverRoot
                            + " is mounted)");
        }
        Optional<String> smi = NVIDIA_SMI_PATHS.stream().filter(this::isExecutableFile).findFirst();
        if (smi.isEmpty()) {
            return HostDriver.absent(
                    version.get(),
                    "driver "
                            + version.get()
                            + " is loaded but the host has no nvidia-smi (looked in "
                            + String.join(", ", NVIDIA_SMI_PATHS)
                            + ")");
        }
        List<String> argv =
                host.isSlash()
                        ? List.of(smi.get())
                        : List.of("chroot", host.root().toString(), smi.get());
        CommandResult r = commands.run(argv, NVIDIA_SMI_TIMEOUT);
        if (!r.succeeded()) {
            return HostDriver.absent(
                    version.get(),
                    "the host's nvidia-smi does not work: "
                            + new CommandFailedException(r).getMessage());
        }
        return new HostDriver(true, version.get(), smi.get(), proc.kernelGpus().size(), null);
    }

    private boolean isExecutableFile(String hostPath) {
        Path p = host.resolve(hostPath);
        try {
            return Files.isRegularFile(p) && Files.size(p) > 0 && Files.isExecutable(p);
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
