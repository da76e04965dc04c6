package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.kubelet.cri.v1.Capability;
import org.gpuoperator.kubelet.cri.v1.ContainerConfig;
import org.gpuoperator.kubelet.cri.v1.ContainerMetadata;
import org.gpuoperator.kubelet.cri.v1.ImageSpec;
import org.gpuoperator.kubelet.cri.v1.Int64Value;
import org.gpuoperator.kubelet.cri.v1.KeyValue;
import org.gpuoperator.kubelet.cri.v1.LinuxContainerConfig;
import org.gpuoperator.kubelet.cri.v1.LinuxContainerSecurityContext;
import org.gpuoperator.kubelet.cri.v1.LinuxPodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.LinuxSandboxSecurityContext;
import org.gpuoperator.kubelet.cri.v1.Mount;
import org.gpuoperator.kubelet.cri.v1.MountPropagation;
import org.gpuoperator.kubelet.cri.v1.NamespaceMode;
import org.gpuoperator.kubelet.cri.v1.NamespaceOption;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxMetadata;
import org.gpuoperator.node.host.HostPaths;

/**
 * A pod spec, as stored in the API server, to the CRI configs a kubelet sends: the sandbox and each
 * container, with volumes resolved to paths on the node, env with the downward API, and the
 * security context. Pure: every fact it needs from the node or the API server comes in as an
 * argument.
 */
public final class PodToCri {

    /**
     * The service-account volume the API server's admission would add; here the kubelet adds it.
     */
    public static final String SA_VOLUME = "kube-api-access-sim";

    public static final String SA_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";

    /**
     * A container the kubelet cannot create as specified (its status: waiting,
     * CreateContainerConfigError).
     */
    public static final class ConfigError extends Exception {
        public ConfigError(String message) {
            super(message);
        }
    }

    /**
     * ConfigMap and Secret data for env lookups (Secret values decoded). Empty when the object does
     * not exist.
     */
    public interface ObjectData {
        Optional<Map<String, String>> configMap(String namespace, String name);

        Optional<Map<String, String>> secret(String namespace, String name);

        ObjectData NONE =
                new ObjectData() {
                    public Optional<Map<String, String>> configMap(String ns, String name) {
                        return Optional.empty();
                    }

                    public Optional<Map<String, String>> secret(String ns, String name) {
                        return Optional.empty();
                    }
                };
    }

    /**
     * Node and pod facts a container's config depends on.
     *
     * @param nodeName the node the pod is bound to
     * @param nodeRoot the node's host root: hostPath volumes are resolved under it
     * @param podDir {@code <root>/var/lib/kubelet/pods/<uid>}: where non-hostPath volumes are
     *     materialized
     * @param podIp from the sandbox status (the host IP for host-network pods)
     * @param hostIp the node's address
     * @param access the API server as pods see it
     * @param accountAutomount the automountServiceAccountToken of the pod's service account; null
     *     when unset or the account is not found
     */
    public record PodContext(
            String nodeName,
            Path nodeRoot,
            Path podDir,
            String podIp,
            String hostIp,
            ClusterAccess access,
            Boolean accountAutomount) {

        public PodContext(
                String nodeName,
                Path nodeRoot,
                Path podDir,
                String podIp,
                String hostIp,
                ClusterAccess access) {
            this(nodeName, nodeRoot, podDir, podIp, hostIp, access, null);
        }
    }

    private PodToCri() {}

    // ---- sandbox

    public static Path logDirectory(Pod pod, Path nodeRoot) {
        var m = pod.getMetadata();
        return nodeRoot.resolve("var/log/pods")
                .resolve(m.getNamespace() + "_" + m.getName() + "_" + m.getUid());
    }

    public static Path podDir(Pod pod, Path nodeRoot) {
        return nodeRoot.resolve("var/lib/kubelet/pods").resolve(pod.getMetadata().getUid());
    }

    public static boolean hostNetwork(Pod pod) {
        return Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    }

    /**
     * As the kubelet: host namespaces when asked; PID per container unless the pod shares its
     * process namespace.
     */
    public static NamespaceOption namespaces(Pod pod) {
        var s = pod.getSpec();
        NamespaceMode pid =
                Boolean.TRUE.equals(s.getHostPID())
                        ? NamespaceMode.NODE
                        : Boolean.TRUE.equals(s.getShareProcessNamespace())
                                ? NamespaceMode.POD
                                : NamespaceMode.CONTAINER;
        return NamespaceOption.newBuilder()
                .setNetwork(hostNetwork(pod) ? NamespaceMode.NODE : NamespaceMode.POD)
                .setPid(pid)
                .setIpc(
                        Boolean.TRUE.equals(s.getHostIPC())
                                ? NamespaceMode.NODE
                                : NamespaceMode.POD)
                .build();
    }

    public static Map<String, String> sandboxLabels(Pod pod) {
        Map<String, String> labels = new LinkedHashMap<>(nullSafe(pod.getMetadata().getLabels()));
        labels.put("io.kubernetes.pod.name", pod.getMetadata().getName());
        labels.put("io.kubernetes.pod.namespace", pod.getMetadata().getNamespace());
        labels.put("io.kubernetes.pod.uid", pod.getMetadata().getUid());
        return labels;
    }

    public static PodSandboxConfig sandbox(Pod pod, Path nodeRoot, int attempt) {
        var m = pod.getMetadata();
        PodSecurityContext psc = pod.getSpec().getSecurityContext();
        LinuxSandboxSecurityContext.Builder sec =
                LinuxSandboxSecurityContext.newBuilder()
                        .setNamespaceOptions(namespaces(pod))
                        .setPrivileged(
                                allContainers(pod).stream()
                                        .anyMatch(
                                                c ->
                                                        c.getSecurityContext() != null
                                                                && Boolean.TRUE.equals(
                                                                        c.getSecurityContext()
                                                                                .getPrivileged())));
        if (psc != null && psc.getRunAsUser() != null) {
            sec.setRunAsUser(Int64Value.newBuilder().setValue(psc.getRunAsUser()));
        }
        if (psc != null && psc.getRunAsGroup() != null) {
            sec.setRunAsGroup(Int64Value.newBuilder().setValue(psc.getRunAsGroup()));
        }
        PodSandboxConfig.Builder b =
                PodSandboxConfig.newBuilder()
                        .setMetadata(
                                PodSandboxMetadata.newBuilder()
                                        .setName(m.getName())
                                        .setNamespace(m.getNamespace())
                                        .setUid(m.getUid())
                                        .setAttempt(attempt))
                        .setLogDirectory(logDirectory(pod, nodeRoot).toString())
                        .putAllLabels(sandboxLabels(pod))
                        .putAllAnnotations(nullSafe(m.getAnnotations()))
                        .setLinux(
                                LinuxPodSandboxConfig.newBuilder()
                                        .setCgroupParent(PodCgroups.parent(pod))
                                        .setSecurityContext(sec));
        if (!hostNetwork(pod)) {
            // a host-network sandbox shares the node's UTS namespace: no hostname of its own
            b.setHostname(
                    pod.getSpec().getHostname() != null
                            ? pod.getSpec().getHostname()
                            : m.getName());
        }
        return b.build();
    }

    // ---- volumes

    /**
     * The directory under the pod dir where the kubelet materializes a volume of plugin {@code
     * plugin}.
     */
    public static Path volumeDir(Path podDir, String plugin, String volume) {
        return podDir.resolve("volumes").resolve("kubernetes.io~" + plugin).resolve(volume);
    }

    /** The service account the pod runs as ({@code default} when it names none). */
    public static String serviceAccountName(Pod pod) {
        String name = pod.getSpec().getServiceAccountName();
        return name == null || name.isEmpty() ? "default" : name;
    }

    /**
     * Whether the pod gets the service-account volume: the pod's {@code
     * automountServiceAccountToken} wins; unset, its service account's does (null: unset).
     */
    public static boolean automountsServiceAccount(Pod pod, Boolean accountAutomount) {
        Boolean own = pod.getSpec().getAutomountServiceAccountToken();
        return own != null ? own : !Boolean.FALSE.equals(accountAutomount);
    }

    /**
     * Where volume {@code v} lives on the node (the source of its bind mounts). A hostPath is under
     * the node root, except {@code /proc} itself: the node's {@code <root>/proc} holds the
     * simulated kernel's files, which the simulated driver writes; the PID view of the pods and the
     * node's processes (the exporter's {@code /proc/<pid>/cgroup}) is the machine's procfs, which
     * containerd sees at {@code /proc} in the node's mount namespace, with the node's {@code
     * /proc/driver} on it.
     */
    public static Path volumeSource(Volume v, Path nodeRoot, Path podDir) throws ConfigError {
        if (v.getHostPath() != null) {
            String path = HostPaths.relative(v.getHostPath().getPath()).replaceFirst("/+$", "");
            return path.equals("proc") ? Path.of("/proc") : nodeRoot.resolve(path);
        }
        if (v.getConfigMap() != null) {
            return volumeDir(podDir, "configmap", v.getName());
        }
        if (v.getSecret() != null) {
            return volumeDir(podDir, "secret", v.getName());
        }
        if (v.getEmptyDir() != null) {
            return volumeDir(podDir, "empty-dir", v.getName());
        }
        if (v.getProjected() != null || SA_VOLUME.equals(v.getName())) {
            return volumeDir(podDir, "projected", v.getName());
        }
        throw new ConfigError(
                "volume "
                        + v.getName()
                        + ": only hostPath, configMap, secret, emptyDir and projected"
                        + " service-account volumes are supported by the simulated kubelet");
    }

    static MountPropagation propagation(String mode) throws ConfigError {
        if (mode == null || mode.equals("None")) {
            return MountPropagation.PROPAGATION_PRIVATE;
        }
        return switch (mode) {
            case "HostToContainer" -> MountPropagation.PROPAGATION_HOST_TO_CONTAINER;
            case "Bidirectional" -> MountPropagation.PROPAGATION_BIDIRECTIONAL;
            default -> throw new ConfigError("invalid mountPropagation " + mode);
        };
    }

    public static List<Mount> mounts(Pod pod, Container c, PodContext ctx) throws ConfigError {
        Map<String, Volume> volumes = new LinkedHashMap<>();
        for (Volume v : nullSafe(pod.getSpec().getVolumes())) {
            volumes.put(v.getName(), v);
        }
        List<Mount> out = new ArrayList<>();
        boolean saMounted = false;
        for (VolumeMount vm : nullSafe(c.getVolumeMounts())) {
            Volume v = volumes.get(vm.getName());
            if (v == null) {
                throw new ConfigError(
                        "cannot find volume \""
                                + vm.getName()
                                + "\" to mount into container \""
                                + c.getName()
                                + "\"");
            }
            Path source = volumeSource(v, ctx.nodeRoot(), ctx.podDir());
            if (vm.getSubPath() != null && !vm.getSubPath().isEmpty()) {
                source = source.resolve(vm.getSubPath());
            }
            MountPropagation prop = propagation(vm.getMountPropagation());
            if (prop == MountPropagation.PROPAGATION_BIDIRECTIONAL && !privileged(c)) {
                throw new ConfigError(
                        "Bidirectional mount propagation is available only to privileged containers");
            }
            boolean readOnly =
                    Boolean.TRUE.equals(vm.getReadOnly())
                            || v.getConfigMap() != null
                            || v.getSecret() != null
                            || v.getProjected() != null;
            out.add(
                    Mount.newBuilder()
                            .setContainerPath(vm.getMountPath())
                            .setHostPath(source.toString())
                            .setReadonly(readOnly)
                            .setPropagation(prop)
                            .build());
            saMounted |= trimSlash(vm.getMountPath()).equals(SA_MOUNT_PATH);
        }
        if (automountsServiceAccount(pod, ctx.accountAutomount()) && !saMounted) {
            out.add(
                    Mount.newBuilder()
                            .setContainerPath(SA_MOUNT_PATH)
                            .setHostPath(volumeDir(ctx.podDir(), "projected", SA_VOLUME).toString())
                            .setReadonly(true)
                            .build());
        }
        return out;
    }

    // ---- env

    private static final Pattern LABEL_REF =
            Pattern.compile("metadata\\.(labels|annotations)\\['([^']+)'\\]");

    /** A downward-API field, or a ConfigError naming what is not supported. */
    public static String fieldRef(Pod pod, String path, PodContext ctx) throws ConfigError {
        var m = pod.getMetadata();
        switch (path) {
            case "spec.nodeName":
                return ctx.nodeName();
            case "metadata.name":
                return m.getName();
            case "metadata.namespace":
                return m.getNamespace();
            case "metadata.uid":
                return m.getUid();
            case "status.podIP", "status.podIPs":
                return ctx.podIp();
            case "status.hostIP", "status.hostIPs":
                return ctx.hostIp();
            case "spec.serviceAccountName":
                return serviceAccountName(pod);
            default:
                Matcher lm = LABEL_REF.matcher(path);
                if (lm.matches()) {
                    Map<String, String> map =
                            lm.group(1).equals("labels") ? m.getLabels() : m.getAnnotations();
                    return nullSafe(map).getOrDefault(lm.group(2), "");
                }
                throw new ConfigError("unsupported fieldRef fieldPath " + path);
        }
    }

    /**
     * The container's environment in the kubelet's order: service variables, envFrom, env; then
     * $(VAR) expansion.
     */
    public static Map<String, String> env(Pod pod, Container c, PodContext ctx, ObjectData data)
            throws ConfigError {
        String ns = pod.getMetadata().getNamespace();
        Map<String, String> env = new LinkedHashMap<>();
        if (ctx.access() != null) {
            env.put("KUBERNETES_SERVICE_HOST", ctx.access().host());
            env.put("KUBERNETES_SERVICE_PORT", String.valueOf(ctx.access().port()));
        }
        for (EnvFromSource from : nullSafe(c.getEnvFrom())) {
            String prefix = from.getPrefix() == null ? "" : from.getPrefix();
            Optional<Map<String, String>> values;
            boolean optional;
            String what;
            if (from.getConfigMapRef() != null) {
                values = data.configMap(ns, from.getConfigMapRef().getName());
                optional = Boolean.TRUE.equals(from.getConfigMapRef().getOptional());
                what = "configmap \"" + from.getConfigMapRef().getName() + "\" not found";
            } else if (from.getSecretRef() != null) {
                values = data.secret(ns, from.getSecretRef().getName());
                optional = Boolean.TRUE.equals(from.getSecretRef().getOptional());
                what = "secret \"" + from.getSecretRef().getName() + "\" not found";
            } else {
                continue;
            }
            if (values.isEmpty() && !optional) {
                throw new ConfigError(what);
            }
            values.orElse(Map.of()).forEach((k, v) -> env.put(prefix + k, v));
        }
        for (EnvVar e : nullSafe(c.getEnv())) {
            String value = e.getValue() == null ? "" : expand(e.getValue(), env);
            var from = e.getValueFrom();
            if (e.getValue() == null && from != null) {
                if (from.getFieldRef() != null) {
                    value = fieldRef(pod, from.getFieldRef().getFieldPath(), ctx);
                } else if (from.getConfigMapKeyRef() != null) {
                    var ref = from.getConfigMapKeyRef();
                    value =
                            key(
                                    data.configMap(ns, ref.getName()),
                                    "configmap",
                                    ref.getName(),
                                    ref.getKey(),
                                    Boolean.TRUE.equals(ref.getOptional()));
                } else if (from.getSecretKeyRef() != null) {
                    var ref = from.getSecretKeyRef();
                    value =
                            key(
                                    data.secret(ns, ref.getName()),
                                    "secret",
                                    ref.getName(),
                                    ref.getKey(),
                                    Boolean.TRUE.equals(ref.getOptional()));
                } else {
                    throw new ConfigError(
                            "env "
                                    + e.getName()
                                    + ": only fieldRef, configMapKeyRef and secretKeyRef are supported");
                }
                if (value == null) {
                    continue; // optional and absent: not set
                }
            }
            env.put(e.getName(), value);
        }
        return env;
    }

    private static String key(
            Optional<Map<String, String>> obj,
            String kind,
            String name,
            String key,
            boolean optional)
            throws ConfigError {
        if (obj.isEmpty()) {
            if (optional) {
                return null;
            }
            throw new ConfigError(kind + " \"" + name + "\" not found");
        }
        String v = obj.get().get(key);
        if (v == null && !optional) {
            throw new ConfigError(
                    "couldn't find key "
                            + key
                            + " in "
                            + (kind.equals("secret") ? "Secret" : "ConfigMap")
                            + " "
                            + name);
        }
        return v;
    }

    private static final Pattern VAR_REF =
            Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)");

    /**
     * Kubernetes' $(VAR) expansion: defined names are replaced, $$ escapes, undefined references
     * stay as written.
     */
    public static String expand(String s, Map<String, String> env) {
        Matcher m = VAR_REF.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String rep = m.group(1) == null ? "$" : env.getOrDefault(m.group(1), m.group());
            m.appendReplacement(out, Matcher.quoteReplacement(rep));
        }
        m.appendTail(out);
        return out.toString();
    }

    // ---- container

    static boolean privileged(Container c) {
        return c.getSecurityContext() != null
                && Boolean.TRUE.equals(c.getSecurityContext().getPrivileged());
    }

    public static LinuxContainerSecurityContext security(Pod pod, Container c) {
        SecurityContext sc = c.getSecurityContext();
        PodSecurityContext psc = pod.getSpec().getSecurityContext();
        LinuxContainerSecurityContext.Builder b =
                LinuxContainerSecurityContext.newBuilder().setNamespaceOptions(namespaces(pod));
        Long user =
                sc != null && sc.getRunAsUser() != null
                        ? sc.getRunAsUser()
                        : psc == null ? null : psc.getRunAsUser();
        Long group =
                sc != null && sc.getRunAsGroup() != null
                        ? sc.getRunAsGroup()
                        : psc == null ? null : psc.getRunAsGroup();
        if (user != null) {
            b.setRunAsUser(Int64Value.newBuilder().setValue(user));
        }
        if (group != null) {
            b.setRunAsGroup(Int64Value.newBuilder().setValue(group));
        }
        if (psc != null) {
            b.addAllSupplementalGroups(nullSafe(psc.getSupplementalGroups()));
        }
        if (sc != null) {
            b.setPrivileged(Boolean.TRUE.equals(sc.getPrivileged()));
            b.setReadonlyRootfs(Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()));
            // the kubelet sets no_new_privs exactly when privilege escalation is explicitly
            // disallowed
            b.setNoNewPrivs(Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation()));
            if (sc.getCapabilities() != null) {
                b.setCapabilities(
                        Capability.newBuilder()
                                .addAllAddCapabilities(nullSafe(sc.getCapabilities().getAdd()))
                                .addAllDropCapabilities(nullSafe(sc.getCapabilities().getDrop())));
            }
        }
        return b.build();
    }

    /**
     * The CreateContainer config of container {@code c}.
     *
     * @param attempt its restart count: the log file is {@code <name>/<attempt>.log} under the
     *     sandbox's log directory
     * @param image the image to run: the pod's, or the node's stand-in where containerd does not
     *     have it
     */
    public static ContainerConfig container(
            Pod pod, Container c, int attempt, String image, PodContext ctx, ObjectData data)
            throws ConfigError {
        return container(pod, c, attempt, image, ctx, data, DeviceAdmission.ContainerDevices.NONE);
    }

    /**
     * The CreateContainer config of container {@code c} with what its devices add, as the kubelet
     * adds a device plugin's Allocate answer: its envs before the container's own (so the
     * container's win, as at a real node), its mounts after the volume mounts, its device nodes,
     * and its annotations on the container.
     */
    public static ContainerConfig container(
            Pod pod,
            Container c,
            int attempt,
            String image,
            PodContext ctx,
            ObjectData data,
            DeviceAdmission.ContainerDevices devices)
            throws ConfigError {
        Map<String, String> env = env(pod, c, ctx, data);
        ContainerConfig.Builder b =
                ContainerConfig.newBuilder()
                        .setMetadata(
                                ContainerMetadata.newBuilder()
                                        .setName(c.getName())
                                        .setAttempt(attempt))
                        .setImage(ImageSpec.newBuilder().setImage(image))
                        // Kubernetes: command replaces the image's ENTRYPOINT, args its CMD; CRI
                        // has the same two fields
                        .addAllCommand(
                                nullSafe(c.getCommand()).stream().map(s -> expand(s, env)).toList())
                        .addAllArgs(
                                nullSafe(c.getArgs()).stream().map(s -> expand(s, env)).toList())
                        .addAllMounts(mounts(pod, c, ctx))
                        .setLogPath(c.getName() + "/" + attempt + ".log")
                        .putLabels("io.kubernetes.container.name", c.getName())
                        .putLabels("io.kubernetes.pod.name", pod.getMetadata().getName())
                        .putLabels("io.kubernetes.pod.namespace", pod.getMetadata().getNamespace())
                        .putLabels("io.kubernetes.pod.uid", pod.getMetadata().getUid())
                        .putAnnotations(
                                "io.kubernetes.container.restartCount", String.valueOf(attempt))
                        .setStdin(Boolean.TRUE.equals(c.getStdin()))
                        .setTty(Boolean.TRUE.equals(c.getTty()))
                        .setLinux(
                                LinuxContainerConfig.newBuilder()
                                        .setSecurityContext(security(pod, c)));
        if (c.getWorkingDir() != null) {
            b.setWorkingDir(c.getWorkingDir());
        }
        devices.envs().forEach((k, v) -> b.addEnvs(KeyValue.newBuilder().setKey(k).setValue(v)));
        env.forEach((k, v) -> b.addEnvs(KeyValue.newBuilder().setKey(k).setValue(v)));
        for (DeviceAdmission.HostMount m : devices.mounts()) {
            b.addMounts(
                    Mount.newBuilder()
                            .setContainerPath(m.containerPath())
                            .setHostPath(m.hostPath())
                            .setReadonly(m.readOnly()));
        }
        for (DeviceAdmission.HostDevice d : devices.devices()) {
            b.addDevices(
                    org.gpuoperator.kubelet.cri.v1.Device.newBuilder()
                            .setContainerPath(d.containerPath())
                            .setHostPath(d.hostPath())
                            .setPermissions(d.permissions()));
        }
        b.putAllAnnotations(devices.annotations());
        return b.build();
    }

    static List<Container> allContainers(Pod pod) {
        List<Container> all = new ArrayList<>(nullSafe(pod.getSpec().getInitContainers()));
        all.addAll(nullSafe(pod.getSpec().getContainers()));
        return all;
    }

    private static String trimSlash(String s) {
        return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }

    static <K, V> Map<K, V> nullSafe(Map<K, V> m) {
        return m == null ? Map.of() : m;
    }
}
