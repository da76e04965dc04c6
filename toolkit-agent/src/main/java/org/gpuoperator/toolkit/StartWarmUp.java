package org.gpuoperator.toolkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Date;
import java.util.Map;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.toolkit.cri.CriRuntimeConfig;
import org.gpuoperator.toolkit.install.RuntimePayload;
import org.gpuoperator.toolkit.reload.Posix;
import org.tomlj.Toml;

/**
 * Readies, on a second thread while the daemon installs its files and writes the CDI specs, the
 * parts of its path to ready that cost most the first time, in the order the daemon reaches them:
 * the FFM downcalls of restart mode {@code signal} (the peer PID and the signal, linked when {@link
 * Posix} is first used), the simulated runtime's Java part, a date in words (the state file's
 * comment: the time zone and its name's locale data), tomlj's parser (ANTLR builds its automaton
 * when its classes are first used) and the CRI check's client (netty's epoll transport and its
 * native library, gRPC's channel, CRI's messages, the answer's JSON reading). It calls nothing: no
 * socket is connected, no signal sent, the client is built and closed unconnected. A warm-up that
 * fails, or has not finished when the daemon gets there, changes nothing but the time.
 */
final class StartWarmUp {

    /** An answer's config with one handler, read as the check reads containerd's. */
    private static final String CONFIG =
            "{\"containerd\":{\"runtimes\":{\"warm-up\":{\"runtimeType\":\"\",\"options\":{}}}}}";

    private StartWarmUp() {}

    /**
     * What the daemon's path to ready will use.
     *
     * @param signal restart mode signal
     * @param simulatedRuntime the simulated runtime is installed (this process's Java part: its
     *     jars' manifests read, its Java home measured)
     * @param toml the runtime is configured in TOML
     * @param criSocket the socket the CRI check will call, or null when there is no check
     */
    record Needs(boolean signal, boolean simulatedRuntime, boolean toml, Path criSocket) {}

    /** Starts the warm-up of what {@code needs} names. The returned thread ends by itself. */
    static Thread start(Needs needs) {
        return Thread.ofPlatform().daemon().name("toolkit-warm-up").start(() -> run(needs));
    }

    static void run(Needs needs) {
        if (needs.signal()) {
            Posix.link();
        }
        if (needs.simulatedRuntime()) {
            RuntimePayload.ofThisProcess().javaHomeBytes();
        }
        String ignored = new Date().toString(); // Properties.store's date comment
        if (needs.toml()) {
            Toml.parse("version = 2\n[plugins]\n");
        }
        if (needs.criSocket() == null) {
            return;
        }
        try {
            CriRuntimeConfig.handler(
                    CriClient.warmUp(needs.criSocket(), Map.of("config", CONFIG)), "warm-up");
        } catch (IOException | RuntimeException e) {
            // the check itself says what is wrong, if anything is
        }
    }
}
