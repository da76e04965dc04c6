package org.gpuoperator.toolkit.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;

/**
 * Puts the runtime binaries into the install directory on the host ({@code /usr/local/nvidia/toolkit}). Real nodes get
 * the NVIDIA container runtime shipped in the image; simulated nodes get a pass-through shim that logs its arguments
 * and runs runc. Files whose bytes are already right are not touched.
 */
public final class ToolkitInstaller {

    /** Shipped next to the runtime in the image; copied when present. */
    static final List<String> OPTIONAL_TOOLS = List.of("nvidia-container-runtime-hook", "nvidia-container-cli",
            "nvidia-ctk", "nvidia-cdi-hook");

    private final Path hostRoot;
    private final NvidiaRuntimes runtimes;
    private final boolean simulated;
    private final Path sourceDir;
    private final String shimLog;

    /**
     * @param sourceDir where the image keeps the real runtime (real mode)
     * @param shimLog   host path the shim appends its arguments to (simulated mode)
     */
    public ToolkitInstaller(Path hostRoot, NvidiaRuntimes runtimes, boolean simulated, Path sourceDir, String shimLog) {
        this.hostRoot = hostRoot;
        this.runtimes = runtimes;
        this.simulated = simulated;
        this.sourceDir = sourceDir;
        this.shimLog = shimLog;
    }

    /** The shim for simulated nodes: one line per call in the log, then runc with the same arguments. */
    public static String shim(String logFile) {
        return """
                #!/bin/sh
                # nvidia-container-runtime stand-in for simulated GPU nodes (toolkit-agent): records each call, then runs runc.
                printf '%s %s\\n' "$(basename "$0")" "$*" >> '__LOG__' 2>/dev/null || true
                for r in /usr/local/sbin/runc /usr/local/bin/runc /usr/sbin/runc /usr/bin/runc /sbin/runc /bin/runc; do
                  [ -x "$r" ] && exec "$r" "$@"
                done
                exec runc "$@"
                """.replace("__LOG__", logFile.replace("'", "'\\''"));
    }

    /** Host path → content of every file to install. */
    public Map<String, byte[]> desired() throws ConfigException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (simulated) {
            byte[] s = shim(shimLog).getBytes(StandardCharsets.UTF_8);
            runtimes.binaries().values().forEach(p -> files.put(p, s));
            return files;
        }
        List<String> names = new ArrayList<>();
        runtimes.binaries().values().forEach(p -> names.add(p.substring(p.lastIndexOf('/') + 1)));
        for (String n : names) {
            Path src = sourceDir.resolve(n);
            if (!Files.isRegularFile(src)) {
                throw new ConfigException(src + ": the NVIDIA container runtime is missing from the image (--toolkit-source-dir)");
            }
            files.put(runtimes.installDir() + "/" + n, read(src));
        }
        for (String n : OPTIONAL_TOOLS) {
            Path src = sourceDir.resolve(n);
            if (Files.isRegularFile(src)) {
                files.put(runtimes.installDir() + "/" + n, read(src));
            }
        }
        return files;
    }

    /** Installs what differs; returns the host paths written. */
    public List<String> install() throws ConfigException {
        List<String> written = new ArrayList<>();
        for (Map.Entry<String, byte[]> f : desired().entrySet()) {
            Path target = onHost(f.getKey());
            try {
                if (Files.isRegularFile(target) && Arrays.equals(Files.readAllBytes(target), f.getValue())
                        && Files.isExecutable(target)) {
                    continue;
                }
                AtomicFiles.write(target, f.getValue());
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                written.add(f.getKey());
            } catch (IOException e) {
                throw new ConfigException(target + ": cannot install: " + e.getMessage(), e);
            }
        }
        return written;
    }

    /** Every runtime binary is in place and executable. */
    public void verify() throws ConfigException {
        for (String p : runtimes.binaries().values()) {
            if (!Files.isExecutable(onHost(p))) {
                throw new ConfigException(onHost(p) + ": runtime binary missing or not executable");
            }
        }
    }

    private Path onHost(String hostPath) {
        return hostRoot.resolve(hostPath.substring(1));
    }

    private static byte[] read(Path p) throws ConfigException {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new ConfigException(p + ": cannot read: " + e.getMessage(), e);
        }
    }
}
