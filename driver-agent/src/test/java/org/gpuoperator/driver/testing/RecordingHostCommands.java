package org.gpuoperator.driver.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.HostCommands;

/**
 * A fake of the host command interface: answers from scripted rules (matched by argv prefix; the
 * rule added last wins) and records every call in order. A call no rule matches fails with exit
 * 127, so a test never passes on a command it did not expect to answer.
 */
public final class RecordingHostCommands implements HostCommands {

    private record Rule(List<String> prefix, Function<List<String>, CommandResult> response) {}

    private final List<Rule> rules = new ArrayList<>();
    private final List<List<String>> calls = new ArrayList<>();

    public synchronized RecordingHostCommands on(
            List<String> prefix, Function<List<String>, CommandResult> response) {
        rules.add(new Rule(List.copyOf(prefix), response));
        return this;
    }

    public RecordingHostCommands ok(String stdout, String... prefix) {
        return on(List.of(prefix), argv -> CommandResult.ok(argv, stdout));
    }

    public RecordingHostCommands fail(int exitCode, String stderr, String... prefix) {
        return on(List.of(prefix), argv -> CommandResult.failed(argv, exitCode, stderr));
    }

    @Override
    public synchronized CommandResult run(List<String> argv, Duration timeout) {
        calls.add(List.copyOf(argv));
        for (int i = rules.size() - 1; i >= 0; i--) {
            Rule r = rules.get(i);
            if (argv.size() >= r.prefix().size()
                    && argv.subList(0, r.prefix().size()).equals(r.prefix())) {
                return r.response().apply(argv);
            }
        }
        return CommandResult.failed(
                argv, CommandResult.NOT_STARTED, "no scripted response for " + argv);
    }

    public synchronized List<List<String>> calls() {
        return List.copyOf(calls);
    }

    /** Calls of one program, in order. */
    public synchronized List<List<String>> callsOf(String program) {
        return calls.stream().filter(c -> c.getFirst().equals(program)).toList();
    }

    /** The programs called, in order ({@code uname}, {@code modinfo}, {@code insmod}, ...). */
    public synchronized List<String> programs() {
        return calls.stream().map(List::getFirst).toList();
    }

    public synchronized void clearCalls() {
        calls.clear();
    }
}
