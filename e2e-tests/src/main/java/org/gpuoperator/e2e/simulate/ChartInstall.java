package org.gpuoperator.e2e.simulate;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What bin/simulate installs: the chart deploy/helm/gpu-operator rendered by Helm (in-process,
 * helm-java), as {@code helm template gpu-operator deploy/helm/gpu-operator -n gpu-operator -f
 * <simulated values> -f FILE... --set K=V...} renders it. The simulated values come first, so the
 * admin's -f and --set win over them: {@code simulation} on with the run's profile, and no {@code
 * driver.version} (the simulated driver agent installs its profile's driver), which makes the
 * chart's policy deploy/samples/clusterpolicy-simulated.yaml.
 */
public record ChartInstall(Path chart, List<Path> valuesFiles, List<String> sets) {

    public static final String RELEASE = "gpu-operator";
    public static final String NAMESPACE = "gpu-operator";

    public ChartInstall {
        valuesFiles = List.copyOf(valuesFiles);
        sets = List.copyOf(sets);
        for (String set : sets) {
            if (set.indexOf('=') <= 0) {
                throw new IllegalArgumentException(
                        "--set " + set + ": expected KEY=VALUE, e.g. --set driver.enabled=false");
            }
        }
        for (Path f : valuesFiles) {
            if (!Files.isReadable(f)) {
                throw new IllegalArgumentException("-f " + f + ": no such readable file");
            }
        }
    }

    public static ChartInstall of(Path repoRoot, List<Path> valuesFiles, List<String> sets) {
        return new ChartInstall(repoRoot.resolve("deploy/helm/gpu-operator"), valuesFiles, sets);
    }

    /** The values simulate gives before the admin's: a YAML document. */
    static String simulatedValues(String profile) {
        return """
                simulation:
                  enabled: true
                  profile: %s
                  nodeLabel: gpuoperator.org/simulated-gpu
                driver:
                  version: null
                """
                .formatted(profile);
    }

    /**
     * The rendered objects (multi-document YAML); the chart's errors (a mistyped value, a wrong
     * type) as an {@link IllegalArgumentException} with Helm's message.
     */
    public String render(String profile, Path workDir) throws IOException {
        Path simulated = Files.createTempFile(workDir, "simulated-values-", ".yaml");
        try {
            Files.writeString(simulated, simulatedValues(profile));
            TemplateCommand t =
                    new Helm(chart)
                            .template()
                            .withName(RELEASE)
                            .withNamespace(NAMESPACE)
                            .withValuesFile(simulated);
            valuesFiles.forEach(t::withValuesFile);
            for (String set : sets) {
                int eq = set.indexOf('=');
                t.set(set.substring(0, eq), set.substring(eq + 1));
            }
            try {
                return t.call();
            } catch (IllegalStateException e) {
                throw new IllegalArgumentException(chart + ": " + e.getMessage().strip(), e);
            }
        } finally {
            Files.deleteIfExists(simulated);
        }
    }

    /**
     * {@link #render} in a child JVM. Helm's Go runtime, once loaded into a process, takes over
     * SIGINT, SIGTERM and SIGQUIT there: simulate would then no longer stop on Ctrl-C or SIGTERM
     * (seen: SimulateRestartIT's run never ended, and no thread dump came on SIGQUIT).
     */
    public String renderApart(String profile) throws IOException {
        List<String> cmd = new java.util.ArrayList<>();
        cmd.add(
                ProcessHandle.current()
                        .info()
                        .command()
                        .orElse(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()));
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> !a.startsWith("-agentlib"))
                .forEach(cmd::add);
        cmd.add("--enable-native-access=ALL-UNNAMED"); // JNA loads Helm's library
        cmd.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        org.gpuoperator.e2e.E2eMain.class.getName(),
                        "chart-template",
                        "--chart",
                        chart.toString(),
                        "--profile",
                        profile));
        valuesFiles.forEach(f -> cmd.addAll(List.of("-f", f.toString())));
        sets.forEach(s -> cmd.addAll(List.of("--set", s)));
        Path err = Files.createTempFile("chart-template-", ".err");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectError(err.toFile())
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                            .start();
            String out =
                    new String(
                            p.getInputStream().readAllBytes(),
                            java.nio.charset.StandardCharsets.UTF_8);
            int exit;
            try {
                exit = p.waitFor();
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while Helm renders " + chart, e);
            }
            String why = Files.readString(err).strip();
            if (exit == 2) {
                throw new IllegalArgumentException(why);
            }
            if (exit != 0) {
                throw new IOException("Helm rendering " + chart + " exited " + exit + ": " + why);
            }
            return out;
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /** The hook annotation key a copy of the chart renders instead of helm.sh/hook. */
    static final String RENAMED_HOOK = "rendered.gpuoperator.org/hook";

    /**
     * The release's objects and its hooks: helm-java's template leaves hooks out, so this renders a
     * copy of the chart (under workDir) whose hook annotation key is renamed, then names it back;
     * {@link HelmSequence} tells them apart.
     */
    public String renderWithHooks(String profile, Path workDir) throws IOException {
        Path copy = Files.createTempDirectory(workDir, "chart-");
        Path target = copy.resolve(chart.getFileName().toString());
        try (var files = Files.walk(chart)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(chart.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else if (f.startsWith(chart.resolve("templates"))) {
                    Files.writeString(
                            to, Files.readString(f).replace(HelmSequence.HOOK, RENAMED_HOOK));
                } else {
                    Files.copy(f, to);
                }
            }
        }
        return new ChartInstall(target, valuesFiles, sets)
                .render(profile, workDir)
                .replace(RENAMED_HOOK, HelmSequence.HOOK);
    }
}
