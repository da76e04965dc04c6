package org.gpuoperator.node.agent;

import java.io.PrintWriter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs an agent's command line the one way every agent does: {@code --help} and {@code --version}
 * on the command and each subcommand, and every error as one line {@code <command>: error:
 * <message>} on stderr, without a stack trace.
 *
 * <p>Exit codes: {@link #OK}; {@link #FAILED} when the command ran and failed (bad config file,
 * unusable node); {@link #USAGE} when the command line itself is wrong (unknown flag, bad value),
 * before anything ran.
 *
 * <p>An agent's subcommands are declared by {@link Subcommands}, not {@code @Command(subcommands)}:
 * picocli builds every declared subcommand's model by reflection when the command line is made, and
 * an agent's daemon start, whose arguments cannot reach a subcommand, need not pay for that.
 */
public final class AgentCommand {

    /**
     * A command with subcommands, which {@link AgentCommand} adds (in this order) only when the
     * arguments may reach one: a subcommand's name or alias, help or version, or an {@code @file}.
     * Building them took 12-28 ms of an agent's start (async-profiler, five agents).
     */
    public interface Subcommands {
        List<Class<?>> subcommands();
    }

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

    /**
     * The configured command line with every subcommand; callers may still set out/err streams
     * before executing it.
     */
    public static CommandLine commandLine(Object command) {
        return commandLine(command, true);
    }

    private static CommandLine commandLine(Object command, boolean withSubcommands) {
        if (System.getProperty(NO_GROOVY_CLOSURES) == null) {
            System.setProperty(NO_GROOVY_CLOSURES, "true");
        }
        CommandLine cl = new CommandLine(command);
        if (withSubcommands && command instanceof Subcommands s) {
            s.subcommands().forEach(cl::addSubcommand);
        }
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
        return run(command, null, null, args);
    }

    /**
     * {@link #run(Object, String...)} with the given streams (null: picocli's). Arguments that
     * cannot reach a subcommand run on a command line without them; should they be wrong after all,
     * the full command line parses them again and words the error, so the words never depend on the
     * shortcut. Nothing has run when the parser finds one; a ParameterException the command throws
     * as it runs is worded at once.
     */
    static int run(Object command, PrintWriter out, PrintWriter err, String... args) {
        if (command instanceof Subcommands s && !mayReachSubcommand(s.subcommands(), args)) {
            CommandLine daemon = withStreams(commandLine(command, false), out, err);
            boolean[] executing = {false};
            boolean[] usageError = {false};
            CommandLine.IExecutionStrategy strategy = daemon.getExecutionStrategy();
            daemon.setExecutionStrategy(
                    parsed -> {
                        executing[0] = true;
                        return strategy.execute(parsed);
                    });
            CommandLine.IParameterExceptionHandler words = daemon.getParameterExceptionHandler();
            daemon.setParameterExceptionHandler(
                    (e, a) -> {
                        if (executing[0]) { // the command itself refused a value: it has run
                            return words.handleParseException(e, a);
                        }
                        usageError[0] = true;
                        return USAGE;
                    });
            int code = daemon.execute(args);
            if (!usageError[0]) {
                return code;
            }
        }
        return withStreams(commandLine(command), out, err).execute(args);
    }

    /** Whether {@code args} may run a subcommand or print help that lists them. */
    static boolean mayReachSubcommand(List<Class<?>> subcommands, String... args) {
        Set<String> names = new HashSet<>();
        for (Class<?> sub : subcommands) {
            Command c = sub.getAnnotation(Command.class);
            names.add(c.name());
            names.addAll(List.of(c.aliases()));
        }
        for (String a : args) {
            boolean shortCluster = a.startsWith("-") && !a.startsWith("--");
            if (names.contains(a)
                    || a.equals("--help")
                    || a.equals("--version")
                    || a.startsWith("@")
                    || (shortCluster && (a.indexOf('h') >= 0 || a.indexOf('V') >= 0))) {
                return true;
            }
        }
        return false;
    }

    private static CommandLine withStreams(CommandLine cl, PrintWriter out, PrintWriter err) {
        if (out != null) {
            cl.setOut(out);
        }
        if (err != null) {
            cl.setErr(err);
        }
        return cl;
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
