package org.gpuoperator.e2e.kind;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a shell command inside a kind node with {@code docker exec}: a kind node is a container
 * named after the node, so this is how a test reaches the node's files (fault injection,
 * containerd's config) without privileged pods.
 */
final class DockerExec {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private DockerExec() {}

    /** Runs {@code sh -c script} in {@code node}'s container; returns its stdout byte for byte. */
    static byte[] run(String node, String script) {
        List<String> command = List.of("docker", "exec", node, "sh", "-c", script);
        try {
            Process p = new ProcessBuilder(command).start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> out = drain(p.getInputStream());
            CompletableFuture<byte[]> err = drain(p.getErrorStream());
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        "docker exec " + node + " timed out after " + TIMEOUT + ": " + script);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        "docker exec "
                                + node
                                + " exited "
                                + p.exitValue()
                                + " running '"
                                + script
                                + "': "
                                + new String(err.join(), StandardCharsets.UTF_8).strip());
            }
            return out.join();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run docker exec on " + node, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running docker exec on " + node, e);
        }
    }

    static String runText(String node, String script) {
        return new String(run(node, script), StandardCharsets.UTF_8);
    }

    private static CompletableFuture<byte[]> drain(InputStream in) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (in;
                            ByteArrayOutputStream buf = new ByteArrayOutputStream()) {
                        in.transferTo(buf);
                        return buf.toByteArray();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }
}
