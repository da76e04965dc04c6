package org.gpuoperator.toolkit.reload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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

    @Override
    public String describe() {
        return "systemd:" + unit;
    }
}
