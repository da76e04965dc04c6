package org.gpuoperator.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.EventLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line: bad input exits non-zero with one line naming the problem, before anything is
 * served.
 */
class DevicePluginMainTest {

    @TempDir Path tmp;

    record Result(int code, String err, String log) {}

    Result run(Map<String, String> env, String... args) {
        StringWriter err = new StringWriter();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var cmd =
                AgentCommand.commandLine(
                        new DevicePluginMain(
                                env,
                                new EventLog(
                                        "device-plugin",
                                        new PrintStream(log, true, StandardCharsets.UTF_8))));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Result(code, err.toString(), log.toString(StandardCharsets.UTF_8));
    }

    String[] args(String... more) {
        boolean ownSource = java.util.Arrays.asList(more).contains("--gpu-source");
        String[] base = {
            "--device-plugin-path",
            tmp.resolve("plugins").toString(),
            "--validations-dir",
            tmp.resolve("validations").toString(),
            "--health-address",
            "127.0.0.1:0",
            "--host-root",
            tmp.toString(),
            "--gpu-source",
            "simulated:t4-x1"
        };
        if (ownSource) {
            base = java.util.Arrays.copyOf(base, base.length - 2);
        }
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void badConfigFileExitsNonZeroNamingTheFieldAndServesNothing() throws Exception {
        Path cfg =
                Files.writeString(
                        tmp.resolve("config.yaml"),
                        "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 0\n");
        Result r = run(Map.of(), args("--config", cfg.toString()));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .isEqualTo(
                        "device-plugin: error: "
                                + cfg
                                + ": sharing.timeSlicing.resources[0].replicas: must be at least 2, got 0 "
                                + "(to stop sharing, remove the resource from sharing.timeSlicing)"
                                + System.lineSeparator());
        assertThat(tmp.resolve("plugins")).doesNotExist();
    }

    @Test
    void badFlagOrEnvironmentValueExitsNonZero() {
        Result flag = run(Map.of(), args("--mig-strategy", "sometimes"));
        assertThat(flag.code()).isEqualTo(1);
        assertThat(flag.err())
                .contains("--mig-strategy: expected one of none, single, mixed, got 'sometimes'")
                .doesNotContain("\tat ");
        Result env = run(Map.of("DEVICE_ID_STRATEGY", "serial"), args());
        assertThat(env.code()).isEqualTo(1);
        assertThat(env.err()).contains("environment variable DEVICE_ID_STRATEGY");
        Result missing = run(Map.of(), args("--config", tmp.resolve("nope.yaml").toString()));
        assertThat(missing.err()).contains("nope.yaml: config file does not exist");
        Result source = run(Map.of(), args("--gpu-source", "gpus-please"));
        assertThat(source.code()).as(source.err()).isEqualTo(1);
        assertThat(source.err()).contains("invalid GPU source 'gpus-please'");
    }

    @Test
    void unknownProfileFailsWithoutAStackTrace() throws Exception {
        Files.createDirectories(tmp.resolve("validations"));
        Files.writeString(tmp.resolve("validations/toolkit-ready"), "");
        Result r = run(Map.of(), args("--gpu-source", "simulated:nope"));
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .contains("unknown simulated GPU profile 'nope'")
                .doesNotContain("\tat ");
    }

    @Test
    void helpNamesTheOptions() {
        StringWriter out = new StringWriter();
        var cmd =
                AgentCommand.commandLine(
                        new DevicePluginMain(Map.of(), new EventLog("device-plugin")));
        cmd.setOut(new PrintWriter(out, true));
        assertThat(cmd.execute("--help")).isZero();
        assertThat(out.toString())
                .contains(
                        "--device-plugin-path",
                        "--config",
                        "--gpu-source",
                        "--host-root",
                        "--node-name",
                        "--validations-dir",
                        "--health-address",
                        "--device-list-strategy",
                        "--device-id-strategy",
                        "--mig-strategy",
                        "--pass-device-specs",
                        "--version");
    }

    @Test
    void badCommandLineIsAUsageErrorOnOneLine() {
        Result r = run(Map.of(), args("--no-such-flag"));
        assertThat(r.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(r.err())
                .startsWith("device-plugin: error: Unknown option: '--no-such-flag'")
                .contains("Run 'device-plugin --help' for usage.")
                .doesNotContain("Usage:");
    }
}
