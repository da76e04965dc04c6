package org.gpuoperator.toolkit.reload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code systemctl restart <unit>}, run in the host's root through chroot when the agent runs in a
 * container.
 */
public final class SystemdRestart implements Reloader {

    private final String unit;
    private final Path hostRoot;
    private final String systemctl;

    public SystemdRestart(String unit, Path hostRoot, String systemctl) {
        this.unit = unit;
        this.hostRoot = hostRoot;
        this.systemctl = systemctl;
    }

    List<String> command() {
        List<String> cmd = new ArrayList<>();
        if (!hostRoot.toAbsolutePath().normalize().toString().equals("/")) {
            cmd.add("chroot");
            cmd.add(hostRoot.toString());
        }
        cmd.add(systemctl);
        cmd.add("restart");
        cmd.add(unit);
        return cmd;
    }

    @Override
    public void reload() throws IOException {
        Process p = new ProcessBuilder(command()).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command()) + ": timed out after 120 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while restarting " + unit, e);
        }
        if (p.exitValue() != 0) {
            String out =
                    new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            throw new IOException(
                    String.join(" ", command()) + " exited " + p.exitValue() + ": " + out);
        }
    }

    /**
     * systemd is running on the host ({@code /run/systemd/system}, sd_booted()'s test) and
     * systemctl is in the host root; both seen through the host root, as the chrooted systemctl
     * sees them.
     */
    @Override
    public void preflight() throws IOException {
        Path booted = hostRoot.resolve("run/systemd/system");
        if (!Files.isDirectory(booted)) {
            throw new IOException(
                    "restart mode systemd: "
                            + booted
                            + " does not exist: the host does not run systemd, or its root is not "
                            + "mounted at "
                            + hostRoot
                            + " (HOST_ROOT); use --restart-mode signal|none");
        }
        if (systemctl.startsWith("/")) {
            if (!Files.isExecutable(hostRoot.resolve(systemctl.substring(1)))) {
                throw new IOException(
                        "restart mode systemd: "
                                + hostRoot.resolve(systemctl.substring(1))
                                + " is not an executable");
            }
            return;
        }
        List<Path> looked = new ArrayList<>();
        for (String dir : List.of("usr/bin", "bin", "usr/sbin", "sbin")) {
            Path p = hostRoot.resolve(dir).resolve(systemctl);
            if (Files.isExecutable(p)) {
                return;
            }
            looked.add(p);
        }
        throw new IOException(
                "restart mode systemd: "
                        + systemctl
                        + " not found in the host root (looked at "
                        + String.join(", ", looked.stream().map(Path::toString).toList())
                        + ")");
    }

    @Override
    public String describe() {
        return "systemd:" + unit;
    }
}
