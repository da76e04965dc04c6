package org.gpuoperator.deviceplugin.mps;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.node.inventory.Gpu;

/**
 * NVIDIA's MPS on real GPUs: {@code nvidia-cuda-mps-control -d} started with the resource's pipe
 * and log directories and its GPUs, commands written to {@code nvidia-cuda-mps-control}'s standard
 * input, compute mode through {@code nvidia-smi -c EXCLUSIVE_PROCESS}. Both binaries come from the
 * driver, which the container runtime puts on the agent's PATH (utility and compute capabilities).
 */
public final class NvidiaMpsControl implements MpsControl {

    static final String CONTROL = "nvidia-cuda-mps-control";
    private static final long TIMEOUT_SECONDS = 10;

    @Override
    public Daemon start(MpsPaths paths, List<Gpu> gpus) throws IOException {
        Files.createDirectories(paths.pipe());
        Files.createDirectories(paths.log());
        Files.createDirectories(paths.shm());
        ProcessBuilder pb = new ProcessBuilder(CONTROL, "-d");
        env(pb.environment(), paths);
        pb.environment()
                .put(
                        "CUDA_VISIBLE_DEVICES",
                        String.join(",", gpus.stream().map(Gpu::uuid).toList()));
        run(pb, null, CONTROL + " -d");
        return () -> {
            try {
                send(paths, "quit");
            } catch (IOException alreadyGone) {
                // nothing to stop
            }
        };
    }

    @Override
    public String send(MpsPaths paths, String command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(CONTROL);
        env(pb.environment(), paths);
        return run(pb, command + "\n", CONTROL + " <<< " + command).trim();
    }

    @Override
    public void computeMode(Gpu gpu, boolean exclusiveProcess) throws IOException {
        String mode = exclusiveProcess ? "EXCLUSIVE_PROCESS" : "DEFAULT";
        run(
                new ProcessBuilder("nvidia-smi", "-i", gpu.uuid(), "-c", mode),
                null,
                "nvidia-smi -i " + gpu.uuid() + " -c " + mode);
    }

    private static void env(Map<String, String> env, MpsPaths paths) {
        env.put("CUDA_MPS_PIPE_DIRECTORY", paths.pipe().toString());
        env.put("CUDA_MPS_LOG_DIRECTORY", paths.log().toString());
    }

    /** Runs a command to its end; a non-zero exit or a timeout is an error with its output. */
    private static String run(ProcessBuilder pb, String stdin, String what) throws IOException {
        pb.redirectErrorStream(true);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IOException(what + ": cannot run (" + e.getMessage() + ")", e);
        }
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(what + ": no answer in " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(what + ": interrupted", e);
        }
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(what + ": exit " + p.exitValue() + ": " + text.trim());
        }
        return text;
    }
}
