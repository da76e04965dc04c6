package org.gpuoperator.deviceplugin.mps;

import java.nio.file.Path;

/**
 * Where the MPS control daemon of one shared resource keeps its files, as upstream lays them out
 * under the MPS root (default {@value #DEFAULT_ROOT}): {@code <root>/<resource>/pipe} (the control
 * socket), {@code <root>/<resource>/log} ({@code control.log}), {@code <root>/<resource>/.started}
 * (written once the daemon took its limits) and {@code <root>/shm}. Workload containers see the
 * pipe and log directories under {@code /mps/<resource>/} and the shm directory as {@code
 * /dev/shm}.
 *
 * @param root the MPS root, the same path on the host and in the agents' containers
 * @param resource the shared resource as the config names it, e.g. {@code nvidia.com/gpu}
 */
public record MpsPaths(Path root, String resource) {

    public static final String DEFAULT_ROOT = "/run/nvidia/mps";
    public static final String CONTROL_SOCKET = "control";
    public static final String CONTROL_LOG = "control.log";
    public static final String STARTED = ".started";

    public Path dir() {
        return root.resolve(resource);
    }

    public Path pipe() {
        return dir().resolve("pipe");
    }

    public Path log() {
        return dir().resolve("log");
    }

    public Path controlSocket() {
        return pipe().resolve(CONTROL_SOCKET);
    }

    public Path started() {
        return dir().resolve(STARTED);
    }

    public Path shm() {
        return root.resolve("shm");
    }

    public String containerPipe() {
        return "/mps/" + resource + "/pipe";
    }

    public String containerLog() {
        return "/mps/" + resource + "/log";
    }
}
