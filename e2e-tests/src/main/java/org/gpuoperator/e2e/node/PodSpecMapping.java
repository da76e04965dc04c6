package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.node.host.HostPaths;

/**
 * Turns an operand pod, as the controller rendered it, into a local process: what a container
 * runtime does with images, mounts and ports, done with paths and ports instead. Pure: no I/O, so
 * it is unit-tested on its own.
 *
 * <ul>
 *   <li>The image becomes the module's jar: {@code java @images/<module>/jvm.flags -jar
 *       <module>/target/<module>.jar}, so agents run with the JVM flags of their image.
 *   <li>A hostPath volume mounted at {@code /m} maps {@code /m/...} in env values and args to
 *       {@code <node root>/<host path>/...}: each simulated node has its own host root.
 *   <li>Container ports and probe ports get free local ports; {@code HOST:PORT} values that name a
 *       container port are rewritten to {@code 127.0.0.1:<local port>}.
 *   <li>Downward-API env (spec.nodeName, metadata.name, ...) is resolved.
 *   <li>Where an agent uses a built-in default path or address (not named in the pod spec), the
 *       mapped value is passed explicitly; that table is {@link #IMPLICIT_DEFAULTS}.
 * </ul>
 */
public final class PodSpecMapping {

    /** Agents and their modules; a pod of any other kind is not ours to run. */
    public static final Set<String> MODULES =
            Set.of(
                    "driver-agent",
                    "toolkit-agent",
                    "device-plugin",
                    "feature-discovery",
                    "dcgm-exporter");

    /**
     * An agent option whose default is a container path or port the pod spec does not spell out.
     */
    record ImplicitDefault(String module, String option, String containerValue) {}

    static final List<ImplicitDefault> IMPLICIT_DEFAULTS =
            List.of(
                    new ImplicitDefault(
                            "device-plugin",
                            "--device-plugin-path",
                            "/var/lib/kubelet/device-plugins"),
                    new ImplicitDefault(
                            "dcgm-exporter",
                            "--pod-resources-socket",
                            "/var/lib/kubelet/pod-resources/kubelet.sock"),
                    new ImplicitDefault("dcgm-exporter", "--address", ":9400"));

    private static final Pattern ADDRESS = Pattern.compile("^([^/\\s]*):(\\d{1,5})$");

    private final Path repoRoot;
    private final String javaCommand;

    public PodSpecMapping(Path repoRoot, String javaCommand) {
        this.repoRoot = repoRoot;
        this.javaCommand = javaCommand;
    }

    public Path jarOf(String module) {
        return repoRoot.resolve(module).resolve("target").resolve(module + ".jar");
    }

    /**
     * @param pod the pod as stored in the API server
     * @param nodeName the node it is bound to
     * @param nodeRoot that node's host root directory
     * @param freePort supplies free local ports
     * @param extraEnv variables every pod process gets on this cluster (e.g. KUBECONFIG to reach
     *     the API server)
     */
    public LaunchSpec map(
            Pod pod,
            String nodeName,
            Path nodeRoot,
            IntSupplier freePort,
            Map<String, String> extraEnv) {
        String module =
                pod.getMetadata().getLabels() == null
                        ? null
                        : pod.getMetadata().getLabels().get("app.kubernetes.io/name");
        if (module == null || !MODULES.contains(module)) {
            throw new IllegalArgumentException(
                    "pod "
                            + pod.getMetadata().getName()
                            + " has no known app.kubernetes.io/name label (got "
                            + module
                            + "); expected one of "
                            + MODULES);
        }
        Container c = pod.getSpec().getContainers().get(0);

        // Mounts: longest container path first, so /var/lib/kubelet/device-plugins wins over
        // /var/lib/kubelet.
        Map<String, String> hostPaths = new LinkedHashMap<>();
        for (Volume v : nullSafe(pod.getSpec().getVolumes())) {
            if (v.getHostPath() != null) {
                hostPaths.put(v.getName(), v.getHostPath().getPath());
            }
        }
        List<Map.Entry<String, Path>> mounts = new ArrayList<>();
        for (VolumeMount m : nullSafe(c.getVolumeMounts())) {
            String host = hostPaths.get(m.getName());
            if (host != null) {
                mounts.add(Map.entry(trimSlash(m.getMountPath()), HostPaths.under(nodeRoot, host)));
            }
        }
        mounts.sort(
                Comparator.comparingInt((Map.Entry<String, Path> e) -> e.getKey().length())
                        .reversed());

        // Ports: declared container ports and probe ports.
        Map<Integer, Integer> ports = new LinkedHashMap<>();
        Map<String, Integer> named = new LinkedHashMap<>();
        for (ContainerPort p : nullSafe(c.getPorts())) {
            ports.computeIfAbsent(p.getContainerPort(), k -> freePort.getAsInt());
            if (p.getName() != null) {
                named.put(p.getName(), p.getContainerPort());
            }
        }
        String readinessUrl = null;
        Probe probe = c.getReadinessProbe();
        if (probe != null && probe.getHttpGet() != null) {
            HTTPGetAction get = probe.getHttpGet();
            int port = resolvePort(get.getPort(), named);
            int local = ports.computeIfAbsent(port, k -> freePort.getAsInt());
            readinessUrl =
                    "http://127.0.0.1:" + local + (get.getPath() == null ? "/" : get.getPath());
        }

        Map<String, String> env = new LinkedHashMap<>(extraEnv);
        for (EnvVar e : nullSafe(c.getEnv())) {
            String value = e.getValue();
            if (value == null
                    && e.getValueFrom() != null
                    && e.getValueFrom().getFieldRef() != null) {
                value =
                        switch (e.getValueFrom().getFieldRef().getFieldPath()) {
                            case "spec.nodeName" -> nodeName;
                            case "metadata.name" -> pod.getMetadata().getName();
                            case "metadata.namespace" -> pod.getMetadata().getNamespace();
                            case "status.podIP", "status.hostIP" -> "127.0.0.1";
                            default -> null;
                        };
            }
            if (value != null) {
                env.put(e.getName(), rewrite(value, mounts, ports));
            }
        }

        List<String> args = new ArrayList<>();
        for (String a : nullSafe(c.getArgs())) {
            args.add(rewriteArg(a, mounts, ports));
        }
        for (ImplicitDefault d : IMPLICIT_DEFAULTS) {
            if (d.module().equals(module) && !mentions(args, d.option())) {
                String mapped = rewrite(d.containerValue(), mounts, ports);
                if (!mapped.equals(d.containerValue())) {
                    args.add(d.option() + "=" + mapped);
                }
            }
        }

        List<String> command = new ArrayList<>();
        command.add(javaCommand);
        command.add("@" + repoRoot.resolve("images").resolve(module).resolve("jvm.flags"));
        command.add("-jar");
        command.add(jarOf(module).toString());
        command.addAll(args);
        return new LaunchSpec(module, command, env, ports, readinessUrl);
    }

    private static boolean mentions(List<String> args, String option) {
        return args.stream().anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
    }

    private static int resolvePort(IntOrString port, Map<String, Integer> named) {
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        Integer p = named.get(port.getStrVal());
        if (p == null) {
            throw new IllegalArgumentException(
                    "probe names port '"
                            + port.getStrVal()
                            + "' that the container does not declare");
        }
        return p;
    }

    static String rewriteArg(
            String arg, List<Map.Entry<String, Path>> mounts, Map<Integer, Integer> ports) {
        int eq = arg.indexOf('=');
        if (arg.startsWith("-") && eq > 0) {
            return arg.substring(0, eq + 1) + rewrite(arg.substring(eq + 1), mounts, ports);
        }
        return rewrite(arg, mounts, ports);
    }

    /** Maps one value: a container path under a mount, or an address naming a container port. */
    static String rewrite(
            String value, List<Map.Entry<String, Path>> mounts, Map<Integer, Integer> ports) {
        for (Map.Entry<String, Path> m : mounts) {
            String mp = m.getKey();
            if (mp.isEmpty()) { // a mount at "/" maps every absolute path
                if (value.startsWith("/")) {
                    return m.getValue().resolve(value.substring(1)).toString();
                }
                continue;
            }
            if (value.equals(mp)) {
                return m.getValue().toString();
            }
            if (value.startsWith(mp + "/")) {
                return m.getValue().resolve(value.substring(mp.length() + 1)).toString();
            }
        }
        // A host-root directory such as /host whose subdirectories are mounted from the same host
        // paths
        // (/host/etc/containerd from /etc/containerd, ...) stands for the node's root itself.
        if (value.startsWith("/") && value.length() > 1) {
            Path root = null;
            for (Map.Entry<String, Path> m : mounts) {
                String mp = m.getKey();
                if (mp.startsWith(value + "/")) {
                    String hostPath = mp.substring(value.length());
                    Path candidate = hostRootOf(m.getValue(), hostPath);
                    if (candidate == null || (root != null && !root.equals(candidate))) {
                        root = null;
                        break;
                    }
                    root = candidate;
                }
            }
            if (root != null) {
                return root.toString();
            }
        }
        Matcher a = ADDRESS.matcher(value);
        if (a.matches()) {
            Integer local = ports.get(Integer.parseInt(a.group(2)));
            if (local != null) {
                return "127.0.0.1:" + local;
            }
        }
        return value;
    }

    /**
     * The node root that {@code mapped} lies under when it is that root plus {@code hostPath}, else
     * null.
     */
    private static Path hostRootOf(Path mapped, String hostPath) {
        Path p = mapped;
        for (int i = Path.of(hostPath).getNameCount(); i > 0; i--) {
            p = p.getParent();
            if (p == null) {
                return null;
            }
        }
        return p.resolve(hostPath.substring(1)).equals(mapped) ? p : null;
    }

    private static String trimSlash(String p) {
        return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }
}
