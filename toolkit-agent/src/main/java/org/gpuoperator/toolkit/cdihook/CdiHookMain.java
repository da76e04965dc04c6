package org.gpuoperator.toolkit.cdihook;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@code nvidia-cdi-hook}'s command line, for nodes and tests without NVIDIA's: {@code
 * create-symlinks}, {@code update-ldcache}, {@code enable-cuda-compat}, {@code
 * disable-device-node-modification}, each an OCI {@code createContainer} hook reading the container
 * state on stdin. Exit 0 done, 1 failed, 2 bad command line; one error line on stderr.
 */
public final class CdiHookMain {

    static final String NAME = "nvidia-cdi-hook";

    private CdiHookMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.err));
    }

    static int run(String[] args, InputStream stdin, PrintStream err) {
        HookCommand command;
        try {
            command = HookCommand.parse(Arrays.asList(args));
        } catch (HookCommand.UsageException e) {
            err.println(NAME + ": " + e.getMessage());
            return 2;
        }
        try {
            String state =
                    command.containerSpec() == null
                            ? new String(stdin.readAllBytes(), StandardCharsets.UTF_8)
                            : Files.readString(Path.of(command.containerSpec()));
            String bundle = ContainerRoot.bundle(state);
            String root =
                    ContainerRoot.rootPath(
                            bundle, Files.readString(Path.of(bundle, "config.json")));
            new HookRunner(Path.of(root)).run(command);
            return 0;
        } catch (IOException | IllegalArgumentException e) {
            err.println(NAME + ": " + args[0] + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(NAME + ": " + args[0] + ": interrupted");
            return 1;
        }
    }

    /**
     * The launcher an OCI hook's {@code path} can name: a shell script that runs this class in a
     * JVM (settings for a short run). Pure.
     */
    public static String launcher(String javaBinary, String classpath) {
        return "#!/bin/sh\n"
                + "# toolkit-agent's nvidia-cdi-hook, where NVIDIA's is not installed\n"
                + "exec "
                + quote(javaBinary)
                + " -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"
                + " --enable-native-access=ALL-UNNAMED -cp "
                + quote(classpath)
                + " "
                + CdiHookMain.class.getName()
                + " \"$@\"\n";
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
