package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.CapabilitiesBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection.ContainerRuntime;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The container toolkit agent: adds the nvidia runtime to the container runtime's config and
 * reloads it. The runtime ({@code RUNTIME}: the detected one, or the user's) decides which host
 * config and socket directories are mounted; {@code toolkit.env} may move them (k3s, RKE2), as
 * upstream: {@code CONTAINERD_CONFIG}, {@code CONTAINERD_SOCKET}, {@code DOCKER_CONFIG}, {@code
 * DOCKER_SOCKET}, {@code CRIO_CONFIG}, or the agent's own {@code RUNTIME_CONFIG}, {@code
 * RUNTIME_SOCKET}, {@code RUNTIME_DROP_IN_CONFIG}; the mounts follow those paths.
 */
final class ToolkitModel extends OperandModel {

    /** The toolkit agent's default --state-dir (a host path, read under HOST_ROOT). */
    static final String STATE_DIR = "/var/lib/toolkit-agent";

    /** The toolkit agent's default --cdi-spec. */
    static final String CDI_SPEC = "/var/run/cdi/nvidia.yaml";

    ToolkitModel() {
        super(Operand.CONTAINER_TOOLKIT);
    }

    /**
     * Where the runtime keeps its config and socket on the host, after {@code toolkit.env}.
     *
     * @param config the file the agent edits (RUNTIME_CONFIG)
     * @param extraConfig another file the agent edits or reads (containerd drop-in, CRI-O base
     *     config), or null
     * @param socket the runtime's socket (RUNTIME_SOCKET)
     */
    record RuntimePaths(
            ContainerRuntime runtime, String config, String extraConfig, String socket) {

        static RuntimePaths of(PolicySettings policy) {
            Map<String, String> env = userEnv(policy);
            ContainerRuntime runtime =
                    ContainerRuntime.ofAgentName(
                                    env.getOrDefault(
                                            ContainerRuntimeDetection.RUNTIME_ENV, "containerd"))
                            .orElseThrow(
                                    () ->
                                            new IllegalArgumentException(
                                                    "spec.toolkit.env RUNTIME: '"
                                                            + env.get("RUNTIME")
                                                            + "' is not containerd, crio or docker"));
            return switch (runtime) {
                case CONTAINERD ->
                        new RuntimePaths(
                                runtime,
                                first(
                                        env,
                                        "/etc/containerd/config.toml",
                                        "RUNTIME_CONFIG",
                                        "CONTAINERD_CONFIG"),
                                first(
                                        env,
                                        "/etc/containerd/conf.d/99-nvidia.toml",
                                        "RUNTIME_DROP_IN_CONFIG"),
                                first(
                                        env,
                                        "/run/containerd/containerd.sock",
                                        "RUNTIME_SOCKET",
                                        "CONTAINERD_SOCKET"));
                case CRIO ->
                        new RuntimePaths(
                                runtime,
                                first(
                                        env,
                                        "/etc/crio/crio.conf.d/99-nvidia.toml",
                                        "RUNTIME_CONFIG"),
                                first(env, "/etc/crio/crio.conf", "CRIO_CONFIG"),
                                first(
                                        env,
                                        "/var/run/crio/crio.sock",
                                        "RUNTIME_SOCKET",
                                        "CRIO_SOCKET"));
                case DOCKER ->
                        new RuntimePaths(
                                runtime,
                                first(
                                        env,
                                        "/etc/docker/daemon.json",
                                        "RUNTIME_CONFIG",
                                        "DOCKER_CONFIG"),
                                null,
                                first(
                                        env,
                                        "/var/run/docker.sock",
                                        "RUNTIME_SOCKET",
                                        "DOCKER_SOCKET"));
            };
        }

        /** The host directories to mount writable: the config's, the extra file's when apart. */
        List<String> configDirs() {
            List<String> dirs = new ArrayList<>();
            dirs.add(parent(config));
            if (extraConfig != null && !under(parent(extraConfig), dirs)) {
                dirs.add(parent(extraConfig));
            }
            return dirs;
        }

        private static boolean under(String dir, List<String> dirs) {
            return dirs.stream().anyMatch(d -> dir.equals(d) || dir.startsWith(d + "/"));
        }
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        RuntimePaths paths = RuntimePaths.of(policy);
        String runtime = paths.runtime().agentName();
        List<HostMount> mounts = new ArrayList<>();
        mounts.add(
                new HostMount(
                        "host-root",
                        "/",
                        PodContract.HOST_ROOT,
                        "Directory",
                        true,
                        null,
                        "runs the host's containerd binary (chroot) for `config dump`"
                                + " validation and version detection, and the host's systemctl for"
                                + " restart mode systemd"));
        List<String> configDirs = paths.configDirs();
        for (int i = 0; i < configDirs.size(); i++) {
            mounts.add(
                    HostMount.underHostRoot(
                            runtime + "-config" + (i == 0 ? "" : "-" + (i + 1)),
                            configDirs.get(i),
                            "DirectoryOrCreate",
                            false,
                            "adds the nvidia runtime to the " + runtime + " config"));
        }
        mounts.add(
                HostMount.underHostRoot(
                        runtime + "-socket",
                        parent(paths.socket()),
                        "DirectoryOrCreate",
                        false,
                        "finds the "
                                + runtime
                                + " process to signal (restart mode signal) and verifies the"
                                + " handler over CRI"));
        mounts.add(
                HostMount.underHostRoot(
                        "toolkit-install",
                        policy.toolkitInstallDir(),
                        "DirectoryOrCreate",
                        false,
                        "installs the nvidia-container-runtime binaries"));
        mounts.add(
                HostMount.underHostRoot(
                        "toolkit-state",
                        STATE_DIR,
                        "DirectoryOrCreate",
                        false,
                        "backups of the original runtime config: they must outlive the pod, so that "
                                + "uninstall restores the exact bytes after any number of pod restarts"));
        if (CdiWiring.toolkitWritesSpec(policy)) {
            mounts.add(
                    HostMount.underHostRoot(
                            "cdi-spec",
                            parent(userEnv(policy).getOrDefault("CDI_SPEC", CDI_SPEC)),
                            "DirectoryOrCreate",
                            false,
                            "writes the CDI spec of this node's GPUs"));
        }
        if (!policy.simulation().enabled()) {
            mounts.add(
                    HostMount.underHostRoot(
                            "host-dev",
                            "/dev",
                            "Directory",
                            false,
                            "creates the control device nodes a loaded driver lacks"
                                    + " (/dev/nvidia-uvm, -uvm-tools, nvidiactl, -modeset)"));
        }
        mounts.add(HostMount.validations());
        return List.copyOf(mounts);
    }

    /**
     * Root-owned runtime config files (kept owner and mode), a signal to the runtime process,
     * chroot into the host root (containerd's config dump, systemctl), and mknod for the control
     * device nodes a host driver lacks.
     */
    @Override
    SecurityContext securityContext() {
        return rootWithoutCapabilities()
                .withCapabilities(
                        new CapabilitiesBuilder()
                                .withDrop("ALL")
                                .withAdd(
                                        "CHOWN",
                                        "DAC_OVERRIDE",
                                        "FOWNER",
                                        "KILL",
                                        "MKNOD",
                                        "SYS_CHROOT")
                                .build())
                .build();
    }

    @Override
    boolean readsHostRoot() {
        return true;
    }

    /** The default restart mode (signal) finds the runtime's PID through its socket. */
    @Override
    boolean hostPid() {
        return true;
    }

    /**
     * The runtime's paths as the agent's own env (host paths, read under HOST_ROOT), the handler
     * name = the RuntimeClass's handler; user env comes after and may override.
     */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        RuntimePaths paths = RuntimePaths.of(policy);
        Map<String, String> user = userEnv(policy);
        List<EnvVar> env = new ArrayList<>();
        if (!user.containsKey(ContainerRuntimeDetection.RUNTIME_ENV)) {
            env.add(env(ContainerRuntimeDetection.RUNTIME_ENV, paths.runtime().agentName()));
        }
        env.add(env("RUNTIME_CONFIG", paths.config()));
        env.add(env("RUNTIME_SOCKET", paths.socket()));
        // upstream's name for it, and the agent's own (runtime-neutral) name
        env.add(env("CONTAINERD_RUNTIME_CLASS", policy.runtimeClass()));
        env.add(env("NVIDIA_RUNTIME_NAME", policy.runtimeClass()));
        env.addAll(CdiWiring.toolkitEnv(policy));
        if (policy.simulation().enabled()) {
            // simulated nodes have no containerd binary in their host root: said, not silent
            env.add(env("CONTAINERD_SKIP_VALIDATION", "true"));
        }
        return env;
    }

    /** {@code toolkit.env} entries with a literal value, by name (the last one wins). */
    static Map<String, String> userEnv(PolicySettings policy) {
        Map<String, String> env = new LinkedHashMap<>();
        if (policy.operands().containsKey(Operand.CONTAINER_TOOLKIT)) {
            for (EnvVar e : policy.operand(Operand.CONTAINER_TOOLKIT).env()) {
                if (e.getValue() != null) {
                    env.put(e.getName(), e.getValue());
                }
            }
        }
        return env;
    }

    private static String first(Map<String, String> env, String fallback, String... names) {
        for (String n : names) {
            String v = env.get(n);
            if (v != null && !v.isBlank()) {
                if (!v.startsWith("/")) {
                    throw new IllegalArgumentException(
                            "spec.toolkit.env "
                                    + n
                                    + ": must be an absolute host path, got '"
                                    + v
                                    + "'");
                }
                return v;
            }
        }
        return fallback;
    }

    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }
}
