package org.gpuoperator.toolkit.reload;

import java.io.IOException;

/** Makes the runtime read its config again. Called only when a config file's content changed. */
public interface Reloader {

    void reload() throws IOException;

    /**
     * Checks, before anything is written, that this process can reload the runtime at all (from a
     * pod: the host's PID namespace, the socket, the host's systemd); the message names what is
     * missing.
     */
    default void preflight() throws IOException {}

    /**
     * For logs: {@code systemd:containerd}, {@code signal:/run/containerd/containerd.sock}, {@code
     * none}.
     */
    String describe();

    Reloader NONE =
            new Reloader() {
                @Override
                public void reload() {}

                @Override
                public String describe() {
                    return "none";
                }
            };
}
