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
        Posix.kill(runtimePid(), Posix.SIGHUP);
    }

    @Override
    public void preflight() throws IOException {
        runtimePid();
    }

    /**
     * The runtime's PID in this process's PID namespace. The kernel reports 0 for a peer outside
     * it, which is what a pod without {@code hostPID} sees.
     */
    int runtimePid() throws IOException {
        if (!java.nio.file.Files.exists(socket)) {
            throw new IOException(
                    "restart mode signal: "
                            + socket
                            + " does not exist: mount the runtime's socket directory (--socket, "
                            + "RUNTIME_SOCKET), or use --restart-mode systemd|none");
        }
        int pid = Posix.peerPid(socket);
        if (pid <= 0) {
            throw new IOException(
                    "restart mode signal: the process behind "
                            + socket
                            + " is not in this PID namespace (SO_PEERCRED pid "
                            + pid
                            + "): the pod needs hostPID: true");
        }
        return pid;
    }

    @Override
    public String describe() {
        return "signal:" + socket;
    }
}
