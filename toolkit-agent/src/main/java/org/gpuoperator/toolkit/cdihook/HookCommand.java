package org.gpuoperator.toolkit.cdihook;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One {@code nvidia-cdi-hook} invocation, as the CDI spec's hooks write it ({@code nvidia-cdi-hook
 * create-symlinks --link T::L ...}). Flags take {@code --flag value} or {@code --flag=value}, as
 * NVIDIA's command line does; {@code --container-spec FILE} reads the container state from a file
 * instead of stdin. Pure.
 */
public sealed interface HookCommand {

    /** Where the container state is read: a file, or null for stdin (the OCI hook's way). */
    String containerSpec();

    /**
     * Links in the container: {@code link} pointing at {@code target}.
     *
     * @param links in order, each once
     */
    record CreateSymlinks(List<Link> links, String containerSpec) implements HookCommand {
        public CreateSymlinks {
            links = List.copyOf(new LinkedHashSet<>(links));
        }
    }

    /** {@code target::link}: {@code link} is a path in the container, {@code target} its text. */
    record Link(String target, String link) {}

    /**
     * The folders go into a file under the container's {@code /etc/ld.so.conf.d}, then the host's
     * ldconfig rebuilds the container's cache.
     */
    record UpdateLdcache(List<String> folders, String ldconfigPath, String containerSpec)
            implements HookCommand {
        public UpdateLdcache {
            folders = List.copyOf(new LinkedHashSet<>(folders));
        }
    }

    /** CUDA forward compatibility for a host driver of this version. */
    record EnableCudaCompat(String hostDriverVersion, String containerSpec)
            implements HookCommand {}

    /** The container's {@code /proc/driver/nvidia/params} with {@code ModifyDeviceFiles: 0}. */
    record DisableDeviceNodeModification(String containerSpec) implements HookCommand {}

    /** The default {@code --ldconfig-path}, NVIDIA's. */
    String DEFAULT_LDCONFIG = "/sbin/ldconfig";

    /** A command line this hook does not accept; exit 2. */
    final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    /** Parses the arguments after the program name. */
    static HookCommand parse(List<String> args) throws UsageException {
        if (args.isEmpty()) {
            throw new UsageException(
                    "no command: create-symlinks, update-ldcache, enable-cuda-compat or"
                            + " disable-device-node-modification");
        }
        String name = args.getFirst();
        Flags f = Flags.parse(name, args.subList(1, args.size()));
        return switch (name) {
            case "create-symlinks" -> {
                f.allow("link");
                List<Link> links = new ArrayList<>();
                for (String l : f.all("link")) {
                    String[] parts = l.split("::", -1);
                    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
                        throw new UsageException(
                                "create-symlinks: invalid --link '" + l + "': want TARGET::LINK");
                    }
                    if (!parts[1].startsWith("/")) {
                        throw new UsageException(
                                "create-symlinks: --link '" + l + "': the link must be absolute");
                    }
                    links.add(new Link(parts[0], parts[1]));
                }
                yield new CreateSymlinks(links, f.containerSpec);
            }
            case "update-ldcache" -> {
                f.allow("folder", "ldconfig-path");
                for (String folder : f.all("folder")) {
                    if (!folder.startsWith("/")) {
                        throw new UsageException(
                                "update-ldcache: --folder '" + folder + "' must be absolute");
                    }
                }
                String ldconfig = f.last("ldconfig-path", DEFAULT_LDCONFIG);
                if (ldconfig.isEmpty()) {
                    throw new UsageException("update-ldcache: --ldconfig-path is empty");
                }
                yield new UpdateLdcache(f.all("folder"), ldconfig, f.containerSpec);
            }
            case "enable-cuda-compat" -> {
                f.allow("host-driver-version");
                yield new EnableCudaCompat(f.last("host-driver-version", ""), f.containerSpec);
            }
            case "disable-device-node-modification" -> {
                f.allow();
                yield new DisableDeviceNodeModification(f.containerSpec);
            }
            default -> throw new UsageException("unknown command '" + name + "'");
        };
    }

    /** {@code --name value} / {@code --name=value} pairs, in order. */
    final class Flags {
        private final String command;
        private final List<String[]> pairs;
        private final String containerSpec;

        private Flags(String command, List<String[]> pairs, String containerSpec) {
            this.command = command;
            this.pairs = pairs;
            this.containerSpec = containerSpec;
        }

        static Flags parse(String command, List<String> args) throws UsageException {
            List<String[]> pairs = new ArrayList<>();
            String spec = null;
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (!a.startsWith("--") || a.length() == 2) {
                    throw new UsageException(command + ": unexpected argument '" + a + "'");
                }
                String name;
                String value;
                int eq = a.indexOf('=');
                if (eq > 0) {
                    name = a.substring(2, eq);
                    value = a.substring(eq + 1);
                } else {
                    name = a.substring(2);
                    if (i + 1 >= args.size()) {
                        throw new UsageException(command + ": --" + name + " needs a value");
                    }
                    value = args.get(++i);
                }
                if (name.equals("container-spec")) {
                    spec = value.isEmpty() || value.equals("-") ? null : value;
                } else {
                    pairs.add(new String[] {name, value});
                }
            }
            return new Flags(command, pairs, spec);
        }

        void allow(String... names) throws UsageException {
            List<String> ok = List.of(names);
            for (String[] p : pairs) {
                if (!ok.contains(p[0])) {
                    throw new UsageException(command + ": unknown flag --" + p[0]);
                }
            }
        }

        List<String> all(String name) {
            return pairs.stream().filter(p -> p[0].equals(name)).map(p -> p[1]).toList();
        }

        String last(String name, String otherwise) {
            List<String> all = all(name);
            return all.isEmpty() ? otherwise : all.getLast();
        }
    }
}
