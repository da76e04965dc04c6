package org.gpuoperator.toolkit;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.toolkit.apply.ConfigApplier;
import org.gpuoperator.toolkit.apply.ExternalValidator;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.containerd.ContainerdCli;
import org.gpuoperator.toolkit.containerd.ContainerdConfigurer;
import org.gpuoperator.toolkit.containerd.ContainerdVersion;
import org.gpuoperator.toolkit.crio.CrioConfigurer;
import org.gpuoperator.toolkit.docker.DockerConfigurer;
import org.gpuoperator.toolkit.install.NvidiaRuntimeConfig;
import org.gpuoperator.toolkit.reload.Reloader;
import org.gpuoperator.toolkit.reload.SignalReload;
import org.gpuoperator.toolkit.reload.SystemdRestart;
import picocli.CommandLine.Option;

/**
 * Which runtime to configure and how; shared by the daemon, {@code configure} and {@code cleanup}.
 * All paths are host paths.
 */
public class RuntimeOptions {

    public enum Runtime {
        containerd,
        crio,
        docker
    }

    public enum RestartMode {
        systemd,
        signal,
        none
    }

    @Option(
            names = "--runtime",
            defaultValue = "${env:RUNTIME:-containerd}",
            paramLabel = "RUNTIME",
            description = "containerd, crio or docker (default ${DEFAULT-VALUE}). Env: RUNTIME.")
    Runtime runtime;

    @Option(
            names = "--config",
            defaultValue = "${env:RUNTIME_CONFIG}",
            paramLabel = "FILE",
            description =
                    "The runtime's config file on the host: /etc/containerd/config.toml (or a k3s/RKE2 config.toml.tmpl / "
                            + "config-v3.toml.tmpl), /etc/crio/crio.conf.d/99-nvidia.toml, /etc/docker/daemon.json. Env: RUNTIME_CONFIG.")
    String config;

    @Option(
            names = "--drop-in-config",
            defaultValue = "${env:RUNTIME_DROP_IN_CONFIG:-/etc/containerd/conf.d/99-nvidia.toml}",
            paramLabel = "FILE",
            description =
                    "containerd drop-in, imported by the main file (config version 2 and 3) "
                            + "(default ${DEFAULT-VALUE}). Env: RUNTIME_DROP_IN_CONFIG.")
    String dropInConfig;

    @Option(
            names = "--drop-in",
            defaultValue = "${env:CONTAINERD_DROP_IN:-AUTO}",
            paramLabel = "auto|never",
            description =
                    "containerd: auto = drop-in for config version 2 and 3 (on 1.x with the whole CRI "
                            + "table, and only when the main file imports nothing else), else edit the main "
                            + "file; never = always edit the main file (default auto). Env: CONTAINERD_DROP_IN.",
            converter = DropInConverter.class)
    ContainerdConfigurer.DropIn dropIn;

    @Option(
            names = "--crio-base-config",
            defaultValue = "${env:CRIO_CONFIG:-/etc/crio/crio.conf}",
            paramLabel = "FILE",
            description =
                    "CRI-O main config, read for the default runtime's options (default ${DEFAULT-VALUE}).")
    String crioBaseConfig;

    @Option(
            names = "--set-as-default",
            defaultValue = "${env:NVIDIA_RUNTIME_SET_AS_DEFAULT}",
            arity = "0..1",
            description =
                    "Make nvidia the default runtime. Unset: containerd gets nvidia as its default unless its CRI "
                            + "injects CDI devices itself (--cdi-enabled on containerd 1.7 or later), so a pod "
                            + "without a RuntimeClass still gets its GPUs; CRI-O and Docker keep theirs. Env: "
                            + "NVIDIA_RUNTIME_SET_AS_DEFAULT, else upstream's CONTAINERD_SET_AS_DEFAULT.")
    Boolean setAsDefault;

    @Option(
            names = "--cdi-enabled",
            defaultValue = "${env:CDI_ENABLED:-false}",
            arity = "0..1",
            description =
                    "CDI on: the CDI specs, containerd's enable_cdi and cdi_spec_dirs, and the CDI "
                            + "annotations our runtimes pass (nvidia-cdi and nvidia-legacy are registered "
                            + "either way, as upstream). Env: CDI_ENABLED.")
    boolean cdi;

    @Option(
            names = "--runtime-mode",
            defaultValue = "${env:NVIDIA_CONTAINER_RUNTIME_MODE:-auto}",
            paramLabel = "MODE",
            description =
                    "The nvidia runtime's mode in its config.toml: auto, cdi or legacy (default"
                            + " ${DEFAULT-VALUE}). Env: NVIDIA_CONTAINER_RUNTIME_MODE.")
    String runtimeMode;

    @Option(
            names = "--cdi-annotation-prefixes",
            defaultValue =
                    "${env:NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES:-cdi.k8s.io/}",
            split = ",",
            paramLabel = "PREFIX",
            description =
                    "Container annotations with these prefixes name CDI devices: the runtime's"
                            + " config reads them, and with --cdi-enabled containerd passes them to"
                            + " our runtimes (container_annotations). Default ${DEFAULT-VALUE}. Env:"
                            + " NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES.")
    List<String> cdiAnnotationPrefixes;

    @Option(
            names = "--cdi-default-kind",
            defaultValue = "${env:NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND:-nvidia.com/gpu}",
            paramLabel = "KIND",
            description =
                    "The runtime's modes.cdi.default-kind: the CDI kind a bare name in"
                            + " NVIDIA_VISIBLE_DEVICES resolves in (the operator sets"
                            + " management.nvidia.com/gpu with CDI on). Default ${DEFAULT-VALUE}."
                            + " Env: NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND.")
    String cdiDefaultKind;

    @Option(
            names = "--install-dir",
            defaultValue = "${env:TOOLKIT_INSTALL_DIR:-/usr/local/nvidia/toolkit}",
            paramLabel = "DIR",
            description =
                    "Where the runtime binaries go on the host (default ${DEFAULT-VALUE}). Env: TOOLKIT_INSTALL_DIR.")
    String installDir;

    @Option(
            names = "--restart-mode",
            defaultValue = "${env:RUNTIME_RESTART_MODE}",
            paramLabel = "MODE",
            description =
                    "How the runtime picks up a changed config: systemd (restart the unit), signal (SIGHUP to the "
                            + "socket's owner; containerd EXITS on SIGHUP and relies on its supervisor), none. Default as upstream: "
                            + "signal for containerd and docker, systemd for crio. Env: RUNTIME_RESTART_MODE.")
    RestartMode restartMode;

    @Option(
            names = "--restart-unit",
            defaultValue = "${env:RUNTIME_RESTART_UNIT}",
            paramLabel = "UNIT",
            description =
                    "systemd unit to restart (default: containerd, crio or docker; k3s/RKE2: k3s, rke2-server, ...).")
    String restartUnit;

    @Option(
            names = "--socket",
            defaultValue = "${env:RUNTIME_SOCKET}",
            paramLabel = "SOCKET",
            description =
                    "The runtime's socket on the host (default /run/containerd/containerd.sock, /var/run/docker.sock, "
                            + "/var/run/crio/crio.sock). Env: RUNTIME_SOCKET.")
    String socket;

    @Option(
            names = "--containerd-executable",
            defaultValue = "${env:RUNTIME_EXECUTABLE_PATH:-containerd}",
            paramLabel = "EXE",
            description =
                    "containerd binary on the host, for version detection and `config dump` validation.")
    String containerdExecutable;

    @Option(
            names = "--runtime-name",
            defaultValue = "${env:NVIDIA_RUNTIME_NAME}",
            paramLabel = "NAME",
            description =
                    "The handler name to register, the RuntimeClass's handler (default: env "
                            + "CONTAINERD_RUNTIME_CLASS, else nvidia); also NAME-cdi and NAME-legacy. Env: "
                            + "NVIDIA_RUNTIME_NAME.")
    String runtimeName;

    @Option(
            names = "--skip-containerd-validation",
            defaultValue = "${env:CONTAINERD_SKIP_VALIDATION:-false}",
            arity = "0..1",
            description =
                    "Write containerd configs without `containerd config dump` validation when the "
                            + "containerd binary is not reachable (logged as event=containerd-validation-skipped). "
                            + "Without it a missing binary is an error. Env: CONTAINERD_SKIP_VALIDATION.")
    boolean skipContainerdValidation;

    @Option(
            names = "--state-dir",
            defaultValue = "${env:TOOLKIT_STATE_DIR:-/var/lib/toolkit-agent}",
            paramLabel = "DIR",
            description =
                    "Backups of original configs and what to restore on cleanup (default ${DEFAULT-VALUE}).")
    String stateDir;

    public static final class DropInConverter
            implements picocli.CommandLine.ITypeConverter<ContainerdConfigurer.DropIn> {
        @Override
        public ContainerdConfigurer.DropIn convert(String value) {
            return ContainerdConfigurer.DropIn.valueOf(value.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** Upstream's operator passes the RuntimeClass name to its toolkit in this env. */
    static final String UPSTREAM_RUNTIME_CLASS_ENV = "CONTAINERD_RUNTIME_CLASS";

    /**
     * The runtime's mode, CDI annotation prefixes and default kind; a bad value names its option.
     */
    public NvidiaRuntimeConfig.Modes modes() throws ConfigException {
        try {
            return new NvidiaRuntimeConfig.Modes(
                    runtimeMode.trim(),
                    cdiAnnotationPrefixes.stream().map(String::trim).toList(),
                    cdiDefaultKind.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "--runtime-mode / --cdi-annotation-prefixes / --cdi-default-kind (env"
                            + " NVIDIA_CONTAINER_RUNTIME_MODE /"
                            + " NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES /"
                            + " NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND): "
                            + e.getMessage());
        }
    }

    /** The runtimes; {@code --set-as-default} where given, else false (see {@link #configurer}). */
    public NvidiaRuntimes runtimes() {
        return runtimes(askedSetAsDefault().orElse(false));
    }

    private NvidiaRuntimes runtimes(boolean setAsDefault) {
        return new NvidiaRuntimes(installDir, cdi, setAsDefault, runtimeName());
    }

    /** Upstream's toolkit also reads this one for containerd (after ours). */
    static final String UPSTREAM_SET_AS_DEFAULT_ENV = "CONTAINERD_SET_AS_DEFAULT";

    /** --set-as-default / NVIDIA_RUNTIME_SET_AS_DEFAULT, else CONTAINERD_SET_AS_DEFAULT, if set. */
    Optional<Boolean> askedSetAsDefault() {
        if (setAsDefault != null) {
            return Optional.of(setAsDefault);
        }
        String upstream = System.getenv(UPSTREAM_SET_AS_DEFAULT_ENV);
        if (upstream == null || upstream.isBlank()) {
            return Optional.empty();
        }
        String v = upstream.trim().toLowerCase(java.util.Locale.ROOT);
        return Optional.of(v.equals("true") || v.equals("1"));
    }

    /** --runtime-name / NVIDIA_RUNTIME_NAME, else CONTAINERD_RUNTIME_CLASS, else nvidia. */
    public String runtimeName() {
        if (runtimeName != null && !runtimeName.isBlank()) {
            return runtimeName;
        }
        String upstream = System.getenv(UPSTREAM_RUNTIME_CLASS_ENV);
        return upstream != null && !upstream.isBlank() ? upstream : NvidiaRuntimes.NVIDIA;
    }

    public String configPath() {
        if (config != null && !config.isBlank()) {
            return config;
        }
        return switch (runtime) {
            case containerd -> ContainerdConfigurer.DEFAULT_CONFIG;
            case crio -> CrioConfigurer.DEFAULT_DROP_IN;
            case docker -> DockerConfigurer.DEFAULT_CONFIG;
        };
    }

    public String socketPath() {
        if (socket != null && !socket.isBlank()) {
            return socket;
        }
        return switch (runtime) {
            case containerd -> "/run/containerd/containerd.sock";
            case crio -> "/var/run/crio/crio.sock";
            case docker -> "/var/run/docker.sock";
        };
    }

    public ContainerdCli containerdCli(Path hostRoot) {
        return new ContainerdCli(hostRoot, containerdExecutable);
    }

    /**
     * The configurer for the chosen runtime, fed with what the host's binaries say (when
     * reachable).
     */
    public RuntimeConfigurer configurer(Path hostRoot, ConfigApplier applier)
            throws ConfigException {
        String cfg = hostPath(configPath(), hostRoot);
        return switch (runtime) {
            case containerd -> {
                ContainerdCli cli = containerdCli(hostRoot);
                boolean template = cfg.endsWith(".tmpl");
                Optional<ContainerdVersion> version = cli.version();
                yield new ContainerdConfigurer(
                        cfg,
                        absolute(dropInConfig, "--drop-in-config"),
                        runtimes(
                                ContainerdConfigurer.nvidiaAsDefault(
                                        askedSetAsDefault(), cdi, version)),
                        version,
                        template ? Optional.empty() : cli.dump(cfg),
                        dropIn,
                        modes().annotationPrefixes());
            }
            case crio -> {
                String base = absolute(crioBaseConfig, "--crio-base-config");
                Path b = applier.onHost(base);
                Optional<String> text;
                try {
                    text =
                            java.nio.file.Files.exists(b)
                                    ? Optional.of(java.nio.file.Files.readString(b))
                                    : Optional.empty();
                } catch (java.io.IOException e) {
                    throw new ConfigException(base + ": cannot read: " + e.getMessage(), e);
                }
                yield new CrioConfigurer(cfg, base, text, runtimes());
            }
            case docker -> new DockerConfigurer(cfg, runtimes());
        };
    }

    /**
     * containerd validates main configs itself; templates and other runtimes are parse-checked
     * only.
     */
    public ExternalValidator externalValidator(Path hostRoot, EventLog log) throws ConfigException {
        if (runtime != Runtime.containerd || configPath().endsWith(".tmpl")) {
            return ExternalValidator.NONE;
        }
        ContainerdCli cli = containerdCli(hostRoot);
        if (cli.available()) {
            return cli;
        }
        if (!skipContainerdValidation) {
            throw new ConfigException(cli.missingMessage());
        }
        log.warn(
                "containerd-validation-skipped",
                "executable",
                containerdExecutable,
                "host-root",
                hostRoot,
                "why",
                "--skip-containerd-validation: the binary is not reachable");
        return ExternalValidator.NONE;
    }

    /**
     * The restart mode in force: the one given, else upstream's default for the runtime. signal
     * needs nothing from the host but the socket (the pod has hostPID), so it works from a pod;
     * CRI-O has no signal reload.
     */
    public RestartMode restartMode() {
        if (restartMode != null) {
            return restartMode;
        }
        return runtime == Runtime.crio ? RestartMode.systemd : RestartMode.signal;
    }

    public Reloader reloader(Path hostRoot) throws ConfigException {
        return switch (restartMode()) {
            case none -> Reloader.NONE;
            case systemd ->
                    new SystemdRestart(
                            restartUnit != null && !restartUnit.isBlank()
                                    ? restartUnit
                                    : runtime.name(),
                            hostRoot,
                            "systemctl");
            case signal -> {
                if (runtime == Runtime.crio) {
                    throw new ConfigException(
                            "--restart-mode signal is not supported for crio: use systemd");
                }
                yield new SignalReload(
                        hostRoot.resolve(absolute(socketPath(), "--socket").substring(1)));
            }
        };
    }

    public ConfigApplier applier(Path hostRoot, EventLog log) throws ConfigException {
        return new ConfigApplier(
                hostRoot, hostRoot.resolve(absolute(stateDir, "--state-dir").substring(1)), log);
    }

    /**
     * A relative --config is taken from the working directory when the agent runs on the host
     * itself (an admin's preview).
     */
    static String hostPath(String path, Path hostRoot) throws ConfigException {
        if (path != null
                && !path.startsWith("/")
                && hostRoot.toAbsolutePath().normalize().toString().equals("/")) {
            return Path.of(path).toAbsolutePath().normalize().toString();
        }
        return absolute(path, "--config");
    }

    static String absolute(String hostPath, String option) throws ConfigException {
        if (hostPath == null || !hostPath.startsWith("/")) {
            throw new ConfigException(
                    option + " must be an absolute host path, got '" + hostPath + "'");
        }
        return hostPath;
    }
}
