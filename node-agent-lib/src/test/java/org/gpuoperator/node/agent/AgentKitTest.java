package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

class AgentKitTest {

    @TempDir Path dir;

    @Command(name = "demo-agent")
    static final class Demo implements Callable<Integer>, AgentCommand.Subcommands {
        @Override
        public List<Class<?>> subcommands() {
            return List.of(Sub.class);
        }

        @Option(names = "--fail")
        String fail;

        @Option(names = "--interval", converter = Durations.Converter.class)
        Duration interval;

        @Option(names = "--refuse")
        boolean refuse;

        @CommandLine.Spec CommandLine.Model.CommandSpec spec;

        static int calls;

        @Override
        public Integer call() {
            calls++;
            if (refuse) { // as a command that checks a value itself does
                throw new CommandLine.ParameterException(spec.commandLine(), "--refuse: refused");
            }
            if (fail != null) {
                throw new IllegalArgumentException(
                        "config.yaml: line 3: " + fail + "\nsecond line");
            }
            return 0;
        }
    }

    @Command(name = "sub", aliases = "s")
    static final class Sub implements Callable<Integer> {
        /** Models built: picocli makes an option's converter when it builds the model. */
        static int built;

        static final class CountingConverter implements CommandLine.ITypeConverter<String> {
            CountingConverter() {
                built++;
            }

            @Override
            public String convert(String value) {
                return value;
            }
        }

        @Option(names = "--x", converter = CountingConverter.class)
        String x;

        @Override
        public Integer call() {
            throw new NullPointerException();
        }
    }

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = AgentCommand.commandLine(new Demo());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void everyCommandHasHelpAndVersion() {
        assertThat(run("--help"))
                .satisfies(
                        r -> {
                            assertThat(r.code()).isZero();
                            assertThat(r.out())
                                    .contains("Usage: demo-agent", "--version", "--interval");
                        });
        assertThat(run("--version").out().strip()).isEqualTo("demo-agent dev");
        assertThat(run("sub", "--version").out().strip()).isEqualTo("demo-agent sub dev");
        assertThat(run("sub", "--help").out()).contains("Usage: demo-agent sub");
    }

    private static Run runLazily(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = AgentCommand.run(new Demo(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void subcommandsAreBuiltOnlyWhenTheArgumentsMayReachOne() {
        Sub.built = 0;
        assertThat(runLazily("--interval", "5m").code()).isZero();
        assertThat(Sub.built).as("the daemon's start builds no subcommand").isZero();
        assertThat(runLazily("sub").code()).isEqualTo(1); // Sub throws: it ran
        assertThat(runLazily("s").code()).isEqualTo(1);
        assertThat(runLazily("--help").out()).contains("Usage: demo-agent", "sub");
        assertThat(runLazily("-h").out()).contains("sub");
        assertThat(Sub.built).as("one model per command line that may reach it").isEqualTo(4);
        assertThat(AgentCommand.mayReachSubcommand(List.of(Sub.class), "--fail", "x")).isFalse();
        assertThat(AgentCommand.mayReachSubcommand(List.of(Sub.class), "-V")).isTrue();
        assertThat(AgentCommand.mayReachSubcommand(List.of(Sub.class), "@args.txt")).isTrue();
    }

    @Test
    void aUsageErrorReadsTheSameWhetherOrNotSubcommandsWereBuilt() {
        for (String[] args :
                List.of(
                        new String[] {"--bogus"},
                        new String[] {"--interval", "soon"},
                        new String[] {"sbu"},
                        new String[] {"--fail"})) {
            Run lazy = runLazily(args);
            Run full = run(args);
            assertThat(lazy.code()).isEqualTo(AgentCommand.USAGE);
            assertThat(lazy).isEqualTo(full);
        }
        Demo.calls = 0;
        Run refused = runLazily("--refuse");
        assertThat(Demo.calls).as("a command that ran is not run again").isEqualTo(1);
        assertThat(refused.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(refused.err()).startsWith("demo-agent: error: --refuse: refused");
    }

    @Test
    void picocliIsToldThereAreNoGroovyClosuresUnlessTheCommandLineSaysOtherwise() {
        String given = System.getProperty(AgentCommand.NO_GROOVY_CLOSURES);
        try {
            System.clearProperty(AgentCommand.NO_GROOVY_CLOSURES);
            AgentCommand.commandLine(new Demo());
            assertThat(System.getProperty(AgentCommand.NO_GROOVY_CLOSURES)).isEqualTo("true");
            System.setProperty(AgentCommand.NO_GROOVY_CLOSURES, "false");
            AgentCommand.commandLine(new Demo());
            assertThat(System.getProperty(AgentCommand.NO_GROOVY_CLOSURES)).isEqualTo("false");
        } finally {
            if (given == null) {
                System.clearProperty(AgentCommand.NO_GROOVY_CLOSURES);
            } else {
                System.setProperty(AgentCommand.NO_GROOVY_CLOSURES, given);
            }
        }
    }

    @Test
    void failuresAreOneLineWithExitOne() {
        Run r = run("--fail", "unknown field 'x'");
        assertThat(r.code()).isEqualTo(AgentCommand.FAILED).isEqualTo(1);
        assertThat(r.err())
                .isEqualTo(
                        "demo-agent: error: config.yaml: line 3: unknown field 'x' second line"
                                + System.lineSeparator());
        Run bug = run("sub");
        assertThat(bug.code()).isEqualTo(1);
        assertThat(bug.err().strip())
                .isEqualTo("demo-agent: error: java.lang.NullPointerException");
    }

    @Test
    void usageErrorsNameTheProblemAndExitTwo() {
        Run r = run("--interval", "soon");
        assertThat(r.code()).isEqualTo(AgentCommand.USAGE).isEqualTo(2);
        assertThat(r.err().lines().toList())
                .containsExactly(
                        "demo-agent: error: Invalid value for option '--interval': 'soon' is not a duration: use seconds "
                                + "(300), units (500ms, 5m, 1h30m) or ISO-8601 (PT5M)",
                        "Run 'demo-agent --help' for usage.");
        assertThat(run("--bogus").err()).startsWith("demo-agent: error: Unknown option: '--bogus'");
    }

    @ParameterizedTest
    @CsvSource({
        "300,PT5M",
        "0,PT0S",
        "1.5,PT1.5S",
        "5m,PT5M",
        "1h30m,PT1H30M",
        "1.5h,PT1H30M",
        "500ms,PT0.5S",
        "2m30s,PT2M30S",
        "250us,PT0.00025S",
        "1m0.5s,PT1M0.5S",
        "0.5ns0.5ns,PT0.000000001S",
        "0.4ns,PT0S",
        "9223372036s,PT2562047H47M16S",
        "PT5M,PT5M",
        "pt30s,PT30S",
        "' 30s ',PT30S"
    })
    void durationsAcceptSecondsUnitsAndIso(String text, String iso) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest
    @CsvSource({
        "''",
        "m",
        "5 m",
        "-5s",
        "5d",
        "PT-5S",
        "1h-30m",
        "s5",
        "5m30",
        "9223372037s",
        "99999999999999999999",
        "2562048h",
        "1.5.5s"
    })
    void badDurationsAreRefusedWithTheSyntax(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a duration");
    }

    @Test
    void durationsFormatAsGoDoes() {
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMillis(500))).isEqualTo("500ms");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
        for (String s : List.of("1h30m", "30s", "500ms", "1.5s", "2h", "1h0m5s")) {
            assertThat(Durations.parse(Durations.format(Durations.parse(s))))
                    .isEqualTo(Durations.parse(s));
        }
    }

    @ParameterizedTest
    @CsvSource({
        ":8080,'',8080",
        "127.0.0.1:0,127.0.0.1,0",
        "[::1]:9400,::1,9400",
        "node-1:9400,node-1,9400"
    })
    void hostPortsParse(String text, String host, int port) {
        HostPort hp = HostPort.parse(text);
        assertThat(hp).isEqualTo(new HostPort(host, port));
        assertThat(HostPort.parse(hp.toString())).isEqualTo(hp);
    }

    @ParameterizedTest
    @CsvSource({"8080", "::1:80", "host:", "host:http", ":70000", "''"})
    void badHostPortsAreRefused(String text) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching(".*(HOST:PORT|out of range).*");
    }

    @Test
    void settingsResolveFlagThenEnvironmentThenFile() {
        Map<String, Object> file = Map.of("flags.migStrategy", "mixed");
        SettingResolver r =
                new SettingResolver(
                        Map.of("GFD_MIG_STRATEGY", "", "MIG_STRATEGY", "single"),
                        path -> Optional.ofNullable(file.get(path)),
                        "/etc/config.yaml");
        List<String> envs = List.of("GFD_MIG_STRATEGY", "MIG_STRATEGY");

        assertThat(r.resolve("--mig-strategy", "none", envs, "flags.migStrategy"))
                .contains(new SettingResolver.Value("none", "--mig-strategy"));
        assertThat(r.resolve("--mig-strategy", null, envs, "flags.migStrategy"))
                .contains(new SettingResolver.Value("single", "environment variable MIG_STRATEGY"));
        assertThat(
                        r.resolve(
                                "--mig-strategy",
                                null,
                                List.of("GFD_MIG_STRATEGY"),
                                "flags.migStrategy"))
                .contains(
                        new SettingResolver.Value("mixed", "/etc/config.yaml: flags.migStrategy"));
        assertThat(r.resolve("--x", null, List.of(), "flags.other")).isEmpty();
        assertThat(SettingResolver.withoutFile(Map.of()).resolve("--x", null, List.of("X"), "x"))
                .isEmpty();
    }

    @Test
    void backoffDoublesUpToTheCapAndResets() {
        Backoff b = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(5));
        assertThat(List.of(b.next(), b.next(), b.next(), b.next()))
                .containsExactly(
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(5));
        b.reset();
        assertThat(b.peek()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void predecessorWaitEndsOnReadinessOnStopAndOnTimeout() throws Exception {
        ReadinessFiles files = new ReadinessFiles(dir);
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        EventLog log = new EventLog("t", new PrintStream(logged, true));

        PredecessorWait wait = new PredecessorWait(files, Duration.ofHours(1), log);
        CompletableFuture<Optional<Map<String, String>>> waiting =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return wait.await(ReadinessFiles.DRIVER, Duration.ZERO);
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        });
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        wait.stop(); // an hour-long poll still ends at once
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(logged.toString())
                .contains("event=waiting-for-predecessor", "event=wait-stopped");

        PredecessorWait ready = new PredecessorWait(files, Duration.ofMillis(10), log);
        files.markReady(ReadinessFiles.DRIVER, Map.of("IS_HOST_DRIVER", "true"));
        assertThat(ready.await(ReadinessFiles.DRIVER, Duration.ZERO))
                .contains(Map.of("IS_HOST_DRIVER", "true"));

        assertThatThrownBy(() -> ready.await(ReadinessFiles.TOOLKIT, Duration.ofMillis(50)))
                .isInstanceOf(java.util.concurrent.TimeoutException.class)
                .hasMessage("timed out after 50ms waiting for " + dir.resolve("toolkit-ready"));
    }

    @Test
    void sighupRunsTheReloadOffTheSignalThreadAndLogsIt() throws Exception {
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        EventLog log = new EventLog("t", new PrintStream(logged, true));
        CompletableFuture<String> reloadedOn = new CompletableFuture<>();
        assertThat(
                        ReloadSignal.install(
                                log, () -> reloadedOn.complete(Thread.currentThread().getName())))
                .isTrue();
        sun.misc.Signal.raise(new sun.misc.Signal("HUP"));
        assertThat(reloadedOn.get(5, TimeUnit.SECONDS)).isEqualTo("reload");
        assertThat(logged.toString())
                .contains("event=signal")
                .contains("name=SIGHUP")
                .contains("action=reload");
    }

    @Test
    void jsonStringsEscapeWhatRfc8259Requires() {
        assertThat(JsonStrings.quote("a\"b\\c\nd\re\tf\u0001g/h"))
                .isEqualTo("\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g/h\"");
        assertThat(JsonStrings.quote("")).isEqualTo("\"\"");
    }
}
