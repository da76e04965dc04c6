package org.gpuoperator.e2e.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The mount namespace a simulated node's containerd (and so every shim, runc and runtime it starts)
 * runs in: the node's own files at the absolute paths a real node has them, without touching the
 * machine's mount table.
 *
 * <ul>
 *   <li>The node root is a shared mount, so that rendered {@code HostToContainer} and {@code
 *       Bidirectional} hostPath volumes are accepted (containerd refuses them on a private mount,
 *       as the machine's {@code /} may be).
 *   <li>{@code /usr/local/nvidia}, {@code /run/nvidia}, {@code /var/run/cdi} and {@code
 *       /proc/driver} are the node's: the {@code nvidia} handler's {@code BinaryName} that the
 *       toolkit agent wrote into the node's config, the driver root and readiness files, the CDI
 *       specs, the (simulated) kernel module's files, and the simulated driver image that the
 *       driver root {@code /run/nvidia/driver} links to, and the node's {@code /var/log}, where the
 *       simulated runtime's shim log goes (bound over the machine's, which exists: no tmpfs
 *       needed), and its {@code /etc/containerd} (over the machine's, which exists where containerd
 *       is installed), where the toolkit agent's drop-in {@code conf.d/99-nvidia.toml} is imported
 *       from by its absolute path. Fresh tmpfs mounts on {@code /usr/local}, {@code /run} and
 *       {@code /var/lib} give these mount points without creating directories on the machine;
 *       containerd's own state and the CNI IPAM state live under the node root, so nothing in the
 *       namespace needs the machine's files there (CNI's result cache, {@code /var/lib/cni},
 *       becomes the namespace's own).
 * </ul>
 */
public final class NodeMountNamespace {

    /** Node paths that appear at their absolute path in the namespace. */
    static final List<String> NODE_PATHS =
            List.of(
                    "/usr/local/nvidia",
                    "/run/nvidia",
                    "/run/cdi",
                    "/proc/driver",
                    "/var/lib/driver-agent-sim",
                    "/var/log",
                    "/etc/containerd");

    /**
     * Machine directories covered by a fresh tmpfs in the namespace, so that the node paths need no
     * mount point there.
     */
    static final List<String> FRESH = List.of("/usr/local", "/run", "/var/lib");

    private NodeMountNamespace() {}

    /** The node-root directories the bind mounts need (created before the daemon starts). */
    public static List<Path> sources(Path nodeRoot) {
        List<Path> out = new ArrayList<>();
        for (String p : NODE_PATHS) {
            out.add(nodeRoot.resolve(source(p)));
        }
        return out;
    }

    /**
     * {@code /run/cdi} on the node is its {@code /var/run/cdi} (a real node links /var/run to
     * /run).
     */
    private static String source(String target) {
        return (target.equals("/run/cdi") ? "var/run/cdi" : target.substring(1));
    }

    /**
     * The command that makes the namespace and keeps it in {@code nsFile} (a bind mount of the
     * namespace, outside the node root): {@code unshare --mount=<file>} runs a {@code sh} that
     * mounts, then exits. The namespace outlives the daemon on purpose: a restarted containerd must
     * find the pod network namespaces and shims the old one left.
     */
    public static List<String> create(Path nodeRoot, Path nsFile) {
        for (String dir : FRESH) {
            if (nodeRoot.toAbsolutePath().normalize().startsWith(dir)) {
                throw new IllegalArgumentException(
                        "a node root under "
                                + dir
                                + " would be hidden by the namespace's"
                                + " tmpfs there: "
                                + nodeRoot);
            }
        }
        String r = quote(nodeRoot.toString());
        List<String> steps = new ArrayList<>();
        steps.add("set -e");
        steps.add("mount --make-rprivate /");
        steps.add("mount --bind " + r + " " + r);
        steps.add("mount --make-rshared " + r);
        for (String dir : FRESH) {
            steps.add("mount -t tmpfs -o mode=755 node" + dir.replace('/', '-') + " " + dir);
        }
        for (String p : NODE_PATHS) {
            steps.add("mkdir -p " + p);
            steps.add("mount --bind " + quote(nodeRoot.resolve(source(p)).toString()) + " " + p);
        }
        return List.of("unshare", "--mount=" + nsFile, "sh", "-c", String.join("\n", steps));
    }

    /**
     * Runs {@code daemon} (a containerd whose pods are host processes) in a mount namespace of its
     * own with only the node's {@code /etc/containerd} at that path, where its config imports the
     * toolkit agent's drop-in from; {@code unshare} and {@code sh} exec it, so its PID is the
     * daemon's. The namespace ends with the daemon.
     */
    public static List<String> configOnly(Path nodeRoot, List<String> daemon) {
        String script =
                String.join(
                        "\n",
                        "set -e",
                        "mount --make-rprivate /",
                        "mount --bind "
                                + quote(nodeRoot.resolve("etc/containerd").toString())
                                + " /etc/containerd",
                        "exec \"$@\"");
        List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "sh", "-c", script, "sh"));
        cmd.addAll(daemon);
        return cmd;
    }

    /**
     * Runs {@code daemon} in the namespace kept in {@code nsFile}; nsenter execs it, so its PID is
     * the daemon's.
     */
    public static List<String> enter(Path nsFile, List<String> daemon) {
        List<String> cmd = new ArrayList<>(List.of("nsenter", "--mount=" + nsFile, "--"));
        cmd.addAll(daemon);
        return cmd;
    }

    /**
     * Ends the namespace once nothing runs in it any more ({@code umount} of the file that keeps
     * it).
     */
    public static List<String> remove(Path nsFile) {
        return List.of("umount", nsFile.toString());
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
