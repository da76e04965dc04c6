package org.gpuoperator.toolkit.reload;

import java.io.IOException;
import java.nio.file.Path;

/**
 * SIGHUP to the process that owns the runtime's socket. dockerd reloads its runtimes on SIGHUP.
 * containerd does NOT: it has no SIGHUP handler and exits (1.6.20: status 129), so this mode only
 * "reloads" containerd when a supervisor such as systemd with {@code Restart=always} starts it
 * again. Under k3s/RKE2 that supervisor is the k3s process itself and a dying containerd takes pods
 * down; use systemd mode there.
 */
public final class SignalReload implements Reloader {

    private final Path socket;

    /**
     * @param socket the socket as seen by this process (under the host root)
     */
    public SignalReload(Path socket) {
        this.socket = socket;
    }

    @Override
    public void reload() throws IOException {
        int pid = Posix.peerPid(socket);
        Posix.kill(pid, Posix.SIGHUP);
    }

    @Override
    public String describe() {
        return "signal:" + socket;
    }
}
