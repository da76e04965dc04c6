package org.gpuoperator.toolkit.containerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real containerd binary, for tests that need it. Absent binaries make those tests skip, never
 * pass.
 */
public final class ContainerdBinary {

    public static final String SKIP_MESSAGE =
            "containerd is not installed (apt-get install containerd): test skipped, not passed";

    private ContainerdBinary() {}

    public static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/containerd")) || onPath("containerd");
    }

    public static boolean ctrAvailable() {
        return onPath("ctr");
    }

    private static boolean onPath(String exe) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, exe))) {
                return true;
            }
        }
        return false;
    }

    /** Exit code, stdout and stderr of a short command. */
    public record Run(int exit, String out, String err) {}

    public static Run run(List<String> cmd) throws IOException, InterruptedException {
        Path out = Files.createTempFile("cmd-", ".out");
        Path err = Files.createTempFile("cmd-", ".err");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + cmd);
            }
            return new Run(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    public static String configDefault() throws IOException, InterruptedException {
        Run r = run(List.of("containerd", "config", "default"));
        if (r.exit() != 0) {
            throw new IOException("containerd config default failed: " + r.err());
        }
        return r.out();
    }

    public static Run dump(Path config) throws IOException, InterruptedException {
        return run(List.of("containerd", "--config", config.toString(), "config", "dump"));
    }
}
