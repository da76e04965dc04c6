package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.controller.reconcile.ControllerRuntime;

/**
 * The controller a benchmark measures: in the benchmark's JVM, or alone in its own JVM as the
 * Deployment runs it ({@code -Dbench.controller=process}).
 */
interface MeasuredController extends AutoCloseable {

    long gateEvaluations();

    long reconciliations();

    /**
     * The controller's own CPU seconds so far, GC and JIT included; empty when it shares the
     * benchmark's JVM (its threads are then told apart by name).
     */
    java.util.OptionalDouble cpuSeconds();

    @Override
    void close();

    /** The controller as a library, on a client the benchmark built. */
    static MeasuredController inProcess(ControllerRuntime runtime) {
        return new MeasuredController() {
            @Override
            public long gateEvaluations() {
                return runtime.metrics().gateEvaluations();
            }

            @Override
            public long reconciliations() {
                return runtime.metrics().reconciliations();
            }

            @Override
            public java.util.OptionalDouble cpuSeconds() {
                return java.util.OptionalDouble.empty();
            }

            @Override
            public void close() {
                runtime.close();
            }
        };
    }

    /**
     * {@code operator-controller} in a JVM of its own: the image's {@code jvm.flags}, fabric8's
     * default HTTP client (vert.x, as the Deployment: the JDK client the tests use is left off the
     * class path), the cluster given by {@code kubernetes.master}. Its counters are read from its
     * {@code /metrics}, its CPU and memory from {@code /proc}.
     */
    static OwnProcess ownProcess(Config cluster, String namespace, Path log) {
        return OwnProcess.start(cluster, namespace, log);
    }

    final class OwnProcess implements MeasuredController {
        private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux
        private final Process process;
        private final URI metrics;
        private final HttpClient http = HttpClient.newHttpClient();
        private volatile boolean closing;

        private OwnProcess(Process process, URI metrics, Path log) {
            this.process = process;
            this.metrics = metrics;
            // a controller that dies (out of memory) ends the benchmark, instead of its waiting
            // for a convergence that cannot come
            process.onExit()
                    .thenRun(
                            () -> {
                                if (!closing) {
                                    System.out.println(
                                            "the controller exited "
                                                    + process.exitValue()
                                                    + ": "
                                                    + lastLine(log));
                                    System.exit(3);
                                }
                            });
        }

        private static String lastLine(Path log) {
            try {
                List<String> lines = Files.readAllLines(log);
                return lines.isEmpty() ? "(no output)" : lines.getLast();
            } catch (IOException e) {
                return e.toString();
            }
        }

        static OwnProcess start(Config cluster, String namespace, Path log) {
            try {
                int metricsPort = freePort();
                List<String> command = new ArrayList<>();
                command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                command.addAll(imageFlags());
                // the JVM sizes itself from the Deployment's memory limit, as in its container
                command.add("-XX:MaxRAM=" + deploymentMemoryLimit());
                // -Dbench.controllerJvm="FLAGS": more flags for it (a trial, NMT)
                String extra = System.getProperty("bench.controllerJvm", "").strip();
                if (!extra.isEmpty()) {
                    command.addAll(List.of(extra.split("\\s+")));
                }
                command.add("-Dkubernetes.master=" + cluster.getMasterUrl());
                command.add("-Dkubernetes.auth.tryKubeConfig=false");
                command.add("-Dkubernetes.auth.tryServiceAccount=false");
                command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
                command.add("-cp");
                command.add(controllerClassPath());
                command.add(org.gpuoperator.controller.ControllerMain.class.getName());
                command.add("--namespace=" + namespace);
                command.add("--no-leader-elect");
                command.add("--metrics-bind-address=127.0.0.1:" + metricsPort);
                command.add("--health-probe-bind-address=127.0.0.1:" + freePort());
                ProcessBuilder builder =
                        new ProcessBuilder(command)
                                .redirectErrorStream(true)
                                .redirectOutput(log.toFile());
                builder.environment().putAll(imageEnv());
                Process p = builder.start();
                // a benchmark that dies leaves no controller behind
                Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
                OwnProcess controller =
                        new OwnProcess(
                                p, URI.create("http://127.0.0.1:" + metricsPort + "/metrics"), log);
                controller.awaitMetrics(log);
                return controller;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /**
         * The {@code ENV} of images/operator-controller/Dockerfile (one stage, KEY=VALUE pairs).
         */
        private static java.util.Map<String, String> imageEnv() throws IOException {
            java.util.Map<String, String> env = new java.util.LinkedHashMap<>();
            for (String line :
                    Files.readAllLines(Path.of("../images/operator-controller/Dockerfile"))) {
                if (line.startsWith("ENV ")) {
                    for (String kv : line.substring(4).strip().split("\\s+")) {
                        env.put(
                                kv.substring(0, kv.indexOf('=')),
                                kv.substring(kv.indexOf('=') + 1));
                    }
                }
            }
            return env;
        }

        /** images/operator-controller/jvm.flags, one flag a line. */
        private static List<String> imageFlags() throws IOException {
            Path flags = Path.of("../images/operator-controller/jvm.flags");
            return Files.readAllLines(flags).stream()
                    .map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList();
        }

        /**
         * The operator container's memory limit in deploy/operator.yaml ({@code 350Mi} as "350m").
         */
        private static String deploymentMemoryLimit() throws IOException {
            String yaml = Files.readString(Path.of("../deploy/operator.yaml"));
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile(
                                    "limits:\\s*\\n(?:\\s+cpu:.*\\n)?\\s+memory:\\s*(\\d+)Mi")
                            .matcher(yaml);
            if (!m.find()) {
                throw new IllegalStateException("no memory limit in deploy/operator.yaml");
            }
            return m.group(1) + "m";
        }

        /** {@code jcmd PID JFR.<command> ...}: a recording of the controller's own JVM. */
        void jfr(String command, String... args) {
            List<String> jcmdArgs = new ArrayList<>();
            jcmdArgs.add("JFR." + command);
            jcmdArgs.addAll(List.of(args));
            jcmd(jcmdArgs.toArray(String[]::new));
        }

        /** {@code jcmd PID ARGS}, its output. */
        String jcmd(String... args) {
            List<String> jcmd = new ArrayList<>();
            jcmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
            jcmd.add(Long.toString(process.pid()));
            jcmd.addAll(List.of(args));
            try {
                Process p = new ProcessBuilder(jcmd).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                if (p.waitFor() != 0) {
                    throw new IllegalStateException(String.join(" ", jcmd) + ": " + out);
                }
                return out;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /**
         * This JVM's class path without the test classes and the JDK HTTP client (fabric8's default
         * vert.x one, as the Deployment); with {@code -Dbench.controllerHttpClient=jdk}, without
         * vert.x's instead (fabric8 prefers vert.x when both are there); with {@code
         * -Dbench.controllerClasses=DIR}, DIR instead of this module's classes (another commit's
         * controller, for an A/B on the same benchmark).
         */
        private static String controllerClassPath() {
            String classes = System.getProperty("bench.controllerClasses");
            Path own;
            try {
                own =
                        Path.of(
                                org.gpuoperator.controller.ControllerMain.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .toURI());
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            String unusedHttpClient =
                    "jdk".equals(System.getProperty("bench.controllerHttpClient"))
                            ? "kubernetes-httpclient-vertx"
                            : "kubernetes-httpclient-jdk";
            return Arrays.stream(System.getProperty("java.class.path").split(":"))
                    .filter(e -> !e.endsWith("test-classes"))
                    .map(
                            e ->
                                    classes != null && Path.of(e).toAbsolutePath().equals(own)
                                            ? classes
                                            : e)
                    .filter(e -> !e.contains(unusedHttpClient))
                    .reduce((a, b) -> a + ":" + b)
                    .orElseThrow();
        }

        private static int freePort() throws IOException {
            try (ServerSocket s = new ServerSocket(0)) {
                return s.getLocalPort();
            }
        }

        private void awaitMetrics(Path log) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(
                            "the controller exited " + process.exitValue() + ", see " + log);
                }
                try {
                    scrape();
                    return;
                } catch (IllegalStateException notYet) {
                    sleep(200);
                }
            }
            throw new IllegalStateException("no /metrics from the controller in 60 s, see " + log);
        }

        private String scrape() {
            try {
                HttpResponse<String> r =
                        http.send(
                                HttpRequest.newBuilder(metrics)
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("/metrics: HTTP " + r.statusCode());
                }
                return r.body();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** A counter without labels from the exposition text. */
        private long counter(String name) {
            return scrape().lines()
                    .filter(l -> l.startsWith(name + " "))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(name.length() + 1)))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + name + " in /metrics"));
        }

        @Override
        public long gateEvaluations() {
            return counter("gpu_operator_node_gate_evaluations_total");
        }

        @Override
        public long reconciliations() {
            return counter("gpu_operator_reconciliation_total");
        }

        /** utime + stime of /proc/PID/stat: every thread, GC and JIT compilers included. */
        @Override
        public java.util.OptionalDouble cpuSeconds() {
            try {
                String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                return java.util.OptionalDouble.of((double) ticks / TICKS_PER_SECOND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Its live heap, after the full collection {@code GC.class_histogram} makes. */
        double liveHeapMiB() {
            return ClassHistogram.liveBytes(jcmd("GC.class_histogram")) / 1048576.0;
        }

        /** VmRSS of /proc/PID/status, in MiB. */
        double rssMiB() {
            try {
                return Files.readAllLines(Path.of("/proc/" + process.pid() + "/status")).stream()
                                .filter(l -> l.startsWith("VmRSS:"))
                                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                                .findFirst()
                                .orElseThrow()
                        / 1024.0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            closing = true;
            process.destroy(); // SIGTERM: the controller's shutdown hook closes it
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
