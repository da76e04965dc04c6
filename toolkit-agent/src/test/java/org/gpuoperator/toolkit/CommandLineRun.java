package org.gpuoperator.toolkit;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code toolkit-agent} with arguments as main does, capturing what it prints. */
public record CommandLineRun(int exit, String out, String err) {

    public static CommandLineRun of(String... args) {
        CommandLine cmd = ToolkitAgentMain.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int exit = cmd.execute(args);
        return new CommandLineRun(exit, out.toString(), err.toString());
    }
}
