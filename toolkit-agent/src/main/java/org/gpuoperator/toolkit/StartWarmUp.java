package org.gpuoperator.toolkit;

import java.io.IOException;
import java.nio.file.Path;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.toolkit.cri.CriRuntimeConfig;
import org.tomlj.Toml;

/**
 * Readies, on a second thread while the daemon installs its files and writes the CDI specs, two
 * parts of its path to ready that cost most the first time: tomlj's parser (ANTLR builds its
 * automaton when its classes are first used) and the CRI check's client (netty's epoll transport
 * and its native library, gRPC's channel, CRI's messages, the answer's JSON reading). It calls
 * nothing: the client is built and closed unconnected. A warm-up that fails, or has not finished
 * when the daemon gets there, changes nothing but the time.
 */
final class StartWarmUp {

    /** An answer's config with one handler, read as the check reads containerd's. */
    private static final String CONFIG =
            "{\"containerd\":{\"runtimes\":{\"warm-up\":{\"runtimeType\":\"\",\"options\":{}}}}}";

    private StartWarmUp() {}

    /**
     * Starts the warm-up: {@code toml} for a runtime configured in TOML; {@code criSocket} is the
     * socket the check will call, or null when there is no check. The returned thread ends by
     * itself.
     */
    static Thread start(boolean toml, Path criSocket) {
        return Thread.ofPlatform()
                .daemon()
                .name("toolkit-warm-up")
                .start(() -> run(toml, criSocket));
    }

    static void run(boolean toml, Path criSocket) {
        if (toml) {
            Toml.parse("version = 2\n[plugins]\n");
        }
        if (criSocket == null) {
            return;
        }
        try (CriClient cri = new CriClient(criSocket)) {
            CriRuntimeConfig.handler(
                    StatusResponse.newBuilder().putInfo("config", CONFIG).build(), "warm-up");
        } catch (IOException | RuntimeException e) {
            // the check itself says what is wrong, if anything is
        }
    }
}
