package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One operand container, run as a real local process: started, probed, stopped with SIGTERM,
 * restarted.
 */
public final class AgentProcess {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofMillis(300)).build();

    /** Variables a JVM needs from the outside world; everything else comes from the pod spec. */
    private static final String[] INHERITED = {"PATH", "LANG", "TMPDIR"};

    private final LaunchSpec spec;
    private final Path logFile;
    private Process process;

    public AgentProcess(LaunchSpec spec, Path logFile) {
        this.spec = spec;
        this.logFile = logFile;
    }

    public LaunchSpec spec() {
        return spec;
    }

    public Path logFile() {
        return logFile;
    }

    public void start() throws IOException {
        Files.createDirectories(logFile.getParent());
        ProcessBuilder pb = new ProcessBuilder(spec.command());
        Map<String, String> env = pb.environment();
        Map<String, String> outer = Map.copyOf(env);
        env.clear();
        for (String k : INHERITED) {
            if (outer.containsKey(k)) {
                env.put(k, outer.get(k));
            }
        }
        env.putAll(spec.env());
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        process = pb.start();
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /**
     * Whether the readiness probe answers 200 (a process without a probe is ready while it runs).
     */
    public boolean ready() {
        if (!alive()) {
            return false;
        }
        if (spec.readinessUrl() == null) {
            return true;
        }
        try {
            HttpResponse<Void> r =
                    HTTP.send(
                            HttpRequest.newBuilder(URI.create(spec.readinessUrl()))
                                    .timeout(Duration.ofMillis(500))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGTERM, as the kubelet does, then SIGKILL after {@code grace}. */
    public void stop(Duration grace) {
        terminate();
        awaitExit(grace);
    }

    /** Sends SIGTERM without waiting, so that many processes can shut down at once. */
    public void terminate() {
        if (process != null) {
            process.destroy();
        }
    }

    /** Waits for the process to exit, and kills it after {@code grace}. */
    public void awaitExit(Duration grace) {
        if (process == null) {
            return;
        }
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the process without warning, as a crash would. */
    public void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
