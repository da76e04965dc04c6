package org.gpuoperator.toolkit.reload;

import java.io.IOException;

/** Makes the runtime read its config again. Called only when a config file's content changed. */
public interface Reloader {

    void reload() throws IOException;

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
