package org.gpuoperator.validator.workload;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code validator workload cuda|toolkit}: what runs inside the validator's workload containers.
 * Both run {@code nvidia-smi -L} (the NVIDIA runtime mounts it into the container) and succeed when
 * it lists at least one GPU.
 */
@Command(
        name = "workload",
        description =
                "Run inside a validation workload container; exits 0 when the GPUs are usable.",
        subcommands = {WorkloadCommand.Cuda.class, WorkloadCommand.Toolkit.class})
public final class WorkloadCommand {

    /** The command that proves the GPUs are reachable from a container. */
    public static final List<String> NVIDIA_SMI = List.of("nvidia-smi", "-L");

    @Command(name = "cuda", description = "The cuda check's workload: nvidia-smi -L lists a GPU.")
    static final class Cuda extends Run {}

    @Command(
            name = "toolkit",
            description = "The toolkit check's workload: nvidia-smi -L lists a GPU.")
    static final class Toolkit extends Run {}

    abstract static class Run implements Callable<Integer> {

        @Spec picocli.CommandLine.Model.CommandSpec spec;

        @Option(
                names = "--nvidia-smi",
                defaultValue = "${env:NVIDIA_SMI:-nvidia-smi}",
                paramLabel = "FILE",
                description = "The nvidia-smi to run (default: from PATH). Env: NVIDIA_SMI.")
        String nvidiaSmi;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            Result r = run(List.of(nvidiaSmi, "-L"));
            String verdict = verdict(r);
            if (verdict != null) {
                // the error line carries the output
                throw new IllegalStateException(verdict);
            }
            out.print(r.output().endsWith("\n") ? r.output() : r.output() + "\n");
            out.flush();
            return 0;
        }
    }

    /** Exit code and combined output of nvidia-smi. */
    public record Result(int exitCode, String output) {}

    /** Null when {@code r} shows a usable GPU, else why not. Pure. */
    public static String verdict(Result r) {
        if (r.exitCode() != 0) {
            return "nvidia-smi -L exited " + r.exitCode() + ": " + r.output().strip();
        }
        if (r.output().lines().noneMatch(l -> l.startsWith("GPU "))) {
            return "nvidia-smi -L lists no GPU";
        }
        return null;
    }

    static Result run(List<String> cmd) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(124, "timed out after 60s");
            }
            return new Result(
                    p.exitValue(),
                    new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(127, "cannot run " + cmd.get(0) + ": " + e.getMessage());
        }
    }
}
