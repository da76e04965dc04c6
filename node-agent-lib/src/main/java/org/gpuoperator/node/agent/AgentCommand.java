package org.gpuoperator.node.agent;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs an agent's command line the one way every agent does: {@code --help} and {@code --version}
 * on the command and each subcommand, and every error as one line {@code <command>: error:
 * <message>} on stderr, without a stack trace.
 *
 * <p>Exit codes: {@link #OK}; {@link #FAILED} when the command ran and failed (bad config file,
 * unusable node); {@link #USAGE} when the command line itself is wrong (unknown flag, bad value),
 * before anything ran.
 */
public final class AgentCommand {

    public static final int OK = CommandLine.ExitCode.OK;
    public static final int FAILED = CommandLine.ExitCode.SOFTWARE;
    public static final int USAGE = CommandLine.ExitCode.USAGE;

    private AgentCommand() {}

    /**
     * Tells picocli that no agent has Groovy closures in its annotations: otherwise its default
     * factory's first use looks up {@code groovy.lang.Closure}, and a class that is not there is
     * searched for in every jar of {@code lib/} before the failure (~15 ms of each agent's start,
     * by async-profiler on feature-discovery). A value given on the command line wins.
     */
    static final String NO_GROOVY_CLOSURES = "picocli.disable.closures";

    /** The configured command line; callers may still set out/err streams before executing it. */
    public static CommandLine commandLine(Object command) {
        if (System.getProperty(NO_GROOVY_CLOSURES) == null) {
            System.setProperty(NO_GROOVY_CLOSURES, "true");
        }
        CommandLine cl = new CommandLine(command);
        standardOptions(cl);
        cl.setExecutionExceptionHandler(
                (e, line, parsed) -> {
                    PrintWriter err = line.getErr();
                    err.println(rootName(line) + ": error: " + oneLine(e));
                    err.flush();
                    return FAILED;
                });
        cl.setParameterExceptionHandler(
                (e, args) -> {
                    CommandLine line = e.getCommandLine();
                    PrintWriter err = line.getErr();
                    String name = line.getCommandSpec().qualifiedName();
                    err.println(rootName(line) + ": error: " + oneLine(e));
                    err.println("Run '" + name + " --help' for usage.");
                    err.flush();
                    return USAGE;
                });
        return cl;
    }

    /**
     * Parses and runs {@code args}; returns the exit code (no {@code System.exit}, so tests can
     * call it).
     */
    public static int run(Object command, String... args) {
        return commandLine(command).execute(args);
    }

    /** For an agent's {@code main}: runs and exits with the command's code. */
    public static void exit(Object command, String... args) {
        System.exit(run(command, args));
    }

    /** The message of {@code e} on one line; its type when it has none (a bug, not bad input). */
    public static String oneLine(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            m = e.getClass().getName();
        }
        return m.strip().replace('\n', ' ');
    }

    private static void standardOptions(CommandLine line) {
        CommandSpec spec = line.getCommandSpec();
        if (spec.optionsMap().get("--help") == null) {
            spec.mixinStandardHelpOptions(true);
        }
        if (spec.versionProvider() == null) {
            spec.versionProvider(new VersionProvider(spec));
        }
        line.getSubcommands().values().forEach(AgentCommand::standardOptions);
    }

    private static String rootName(CommandLine line) {
        CommandLine root = line;
        while (root.getParent() != null) {
            root = root.getParent();
        }
        return root.getCommandName();
    }
}
