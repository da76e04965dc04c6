package org.gpuoperator.toolkit.simulated;

import java.util.List;
import java.util.Set;

/**
 * runc's command line as containerd-shim-runc-v2 writes it: global flags, the command, its flags,
 * the container id. Only what {@code create} needs is kept. Pure.
 *
 * @param log {@code --log FILE} (where the shim reads the runtime's last error), or null
 * @param logFormat {@code --log-format} ({@code text} by default, {@code json} from the shim)
 * @param command {@code create}, {@code start}, ... or null
 * @param bundle {@code --bundle/-b} (runc's default: the current directory)
 * @param id the container id (the last argument), or null
 */
public record RuncArgs(String log, String logFormat, String command, String bundle, String id) {

    /** runc's global flags that take a value. */
    private static final Set<String> GLOBAL_WITH_VALUE =
            Set.of("--root", "--log", "--log-format", "--criu", "--rootless");

    /** {@code runc create} flags that take a value. */
    private static final Set<String> CREATE_WITH_VALUE =
            Set.of("--bundle", "-b", "--console-socket", "--pid-file", "--preserve-fds");

    public static RuncArgs parse(List<String> args) {
        String log = null;
        String format = "text";
        String command = null;
        String bundle = ".";
        String id = null;
        int i = 0;
        for (; i < args.size(); i++) {
            String a = args.get(i);
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (GLOBAL_WITH_VALUE.contains(name)) {
                String v =
                        a.contains("=")
                                ? a.substring(a.indexOf('=') + 1)
                                : i + 1 < args.size() ? args.get(++i) : "";
                if (name.equals("--log")) {
                    log = v;
                } else if (name.equals("--log-format")) {
                    format = v;
                }
            } else if (!a.startsWith("-")) {
                command = a;
                i++;
                break;
            }
        }
        for (; i < args.size(); i++) {
            String a = args.get(i);
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (CREATE_WITH_VALUE.contains(name)) {
                String v =
                        a.contains("=")
                                ? a.substring(a.indexOf('=') + 1)
                                : i + 1 < args.size() ? args.get(++i) : "";
                if (name.equals("--bundle") || name.equals("-b")) {
                    bundle = v;
                }
            } else if (!a.startsWith("-")) {
                id = a;
            }
        }
        return new RuncArgs(log, format, command, bundle, id);
    }
}
