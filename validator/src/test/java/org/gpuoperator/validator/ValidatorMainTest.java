package org.gpuoperator.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.validator.workload.WorkloadCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ValidatorMainTest {

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        CommandLine cl = AgentCommand.commandLine(new ValidatorMain());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void helpListsTheContractsFlagsAndEnv() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .contains("Usage: validator")
                .contains("--driver-managed", "DRIVER_MANAGED")
                .contains("--toolkit-managed", "--plugin-managed")
                .contains("--driver-root", "NVIDIA_DRIVER_ROOT")
                .contains("DISABLE_DEV_CHAR_SYMLINK_CREATION")
                .contains("--runtime-socket", "/run/containerd/containerd.sock")
                .contains("--runtime-handler", "--runtime-class", "WORKLOAD_IMAGE")
                .contains("WITH_WORKLOAD", "RECHECK_INTERVAL", "METRICS_ADDRESS", "HEALTH_ADDRESS")
                .contains("workload");
    }

    @Test
    void versionAndTheWorkloadSubcommandsHelpWork() {
        Run v = run("--version");
        assertThat(v.code()).isZero();
        assertThat(v.out()).isNotBlank();
        Run w = run("workload", "cuda", "--help");
        assertThat(w.code()).isZero();
        assertThat(w.out()).contains("Usage: validator workload cuda");
    }

    @Test
    void theDaemonRefusesToStartWithoutItsWorkloadImageNamingTheFlag() {
        Run r = run("--gpu-source", "simulated:t4-x1", "--namespace", "gpu-operator");
        assertThat(r.code()).isEqualTo(AgentCommand.FAILED);
        assertThat(r.err())
                .isEqualTo(
                        "validator: error: --workload-image (env WORKLOAD_IMAGE) is required"
                                + System.lineSeparator());
    }

    @Test
    void theWorkloadRunsNvidiaSmiAndFailsWithItsOutput() {
        Run missing = run("workload", "cuda", "--nvidia-smi", "/nonexistent/nvidia-smi");
        assertThat(missing.code()).isEqualTo(AgentCommand.FAILED);
        assertThat(missing.err())
                .contains("nvidia-smi -L exited 127: cannot run /nonexistent/nvidia-smi");
        Run listed = run("workload", "toolkit", "--nvidia-smi", "/bin/echo");
        assertThat(listed.code()).isEqualTo(AgentCommand.FAILED);
        // echo prints "-L": no GPU line
        assertThat(listed.err()).contains("nvidia-smi -L lists no GPU");
    }

    @Test
    void aListedGpuPassesAndIsPrinted(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path smi = dir.resolve("nvidia-smi");
        java.nio.file.Files.writeString(smi, "#!/bin/sh\necho 'GPU 0: NVIDIA L4 (UUID: GPU-1)'\n");
        smi.toFile().setExecutable(true);
        Run r = run("workload", "cuda", "--nvidia-smi", smi.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("GPU 0: NVIDIA L4 (UUID: GPU-1)\n");
    }

    @Test
    void theVerdictNeedsExitZeroAndAGpuLine() {
        assertThat(
                        WorkloadCommand.verdict(
                                new WorkloadCommand.Result(0, "GPU 0: NVIDIA L4 (UUID: GPU-1)\n")))
                .isNull();
        assertThat(
                        WorkloadCommand.verdict(
                                new WorkloadCommand.Result(9, "NVIDIA-SMI has failed\n")))
                .isEqualTo("nvidia-smi -L exited 9: NVIDIA-SMI has failed");
    }

    @Test
    void theDriverRootDefaultsToTheContainerizedRootOnlyWhenTheDriverIsManaged() {
        ValidatorMain m = new ValidatorMain();
        AgentCommand.commandLine(m).parseArgs("--driver-managed");
        assertThat(m.effectiveDriverRoot()).isEqualTo("/run/nvidia/driver");
        ValidatorMain host = new ValidatorMain();
        AgentCommand.commandLine(host).parseArgs();
        assertThat(host.effectiveDriverRoot()).isEqualTo("/");
    }
}
