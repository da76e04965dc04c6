package org.gpuoperator.node.cdi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One CDI spec file (the Container Device Interface's {@code cdiVersion}, {@code kind}, {@code
 * devices} and spec-level {@code containerEdits}). Pure data; {@link CdiYaml} renders and parses
 * it. Fields of the CDI spec that this project never writes ({@code intelRdt}, {@code netDevices})
 * are not modelled; a spec file that has them still loads (they are ignored).
 *
 * @param cdiVersion e.g. {@code 0.5.0}
 * @param kind {@code vendor/class}, e.g. {@code nvidia.com/gpu}
 * @param annotations spec-level annotations (empty when none)
 * @param devices the devices, in file order
 * @param containerEdits edits for every container that gets any device of this spec
 */
public record CdiSpec(
        String cdiVersion,
        String kind,
        Map<String, String> annotations,
        List<Device> devices,
        ContainerEdits containerEdits) {

    public CdiSpec {
        Objects.requireNonNull(cdiVersion, "cdiVersion");
        Objects.requireNonNull(kind, "kind");
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        devices = List.copyOf(devices);
        containerEdits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
    }

    /** {@code <kind>=<name>}, the name a CRI request or annotation carries. */
    public String qualifiedName(Device d) {
        return kind + "=" + d.name();
    }

    /**
     * One device of a spec.
     *
     * @param name the device name ({@code 0}, {@code GPU-...}, {@code 0:1}, {@code all})
     * @param annotations device annotations (empty when none)
     * @param containerEdits what the device adds to a container
     */
    public record Device(
            String name, Map<String, String> annotations, ContainerEdits containerEdits) {
        public Device {
            Objects.requireNonNull(name, "name");
            annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
            containerEdits = containerEdits == null ? ContainerEdits.EMPTY : containerEdits;
        }

        public Device(String name, ContainerEdits containerEdits) {
            this(name, Map.of(), containerEdits);
        }
    }

    /**
     * What a device (or a whole spec) adds to a container's OCI spec.
     *
     * @param env {@code KEY=value}
     * @param deviceNodes device nodes
     * @param mounts mounts
     * @param hooks OCI hooks
     * @param additionalGids extra groups for the container's process
     */
    public record ContainerEdits(
            List<String> env,
            List<DeviceNode> deviceNodes,
            List<Mount> mounts,
            List<Hook> hooks,
            List<Long> additionalGids) {

        public static final ContainerEdits EMPTY =
                new ContainerEdits(List.of(), List.of(), List.of(), List.of(), List.of());

        public ContainerEdits {
            env = env == null ? List.of() : List.copyOf(env);
            deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
            mounts = mounts == null ? List.of() : List.copyOf(mounts);
            hooks = hooks == null ? List.of() : List.copyOf(hooks);
            additionalGids = additionalGids == null ? List.of() : List.copyOf(additionalGids);
        }

        public boolean isEmpty() {
            return env.isEmpty()
                    && deviceNodes.isEmpty()
                    && mounts.isEmpty()
                    && hooks.isEmpty()
                    && additionalGids.isEmpty();
        }
    }

    /**
     * A device node. Null fields are absent from the file (CDI then takes them from the host's node
     * at {@code hostPath}, else {@code path}).
     *
     * @param path the path in the container
     * @param hostPath the host's node, when it is not at {@code path}
     * @param type {@code c}, {@code b} or {@code p}
     * @param major major number
     * @param minor minor number
     * @param permissions cgroup access, e.g. {@code rwm}
     * @param uid owner in the container
     * @param gid group in the container
     */
    public record DeviceNode(
            String path,
            String hostPath,
            String type,
            Long major,
            Long minor,
            String permissions,
            Long uid,
            Long gid) {
        public DeviceNode {
            Objects.requireNonNull(path, "path");
        }

        /** A node known only by its path. */
        public static DeviceNode of(String path) {
            return new DeviceNode(path, null, null, null, null, null, null, null);
        }

        /** A character device with known numbers. */
        public static DeviceNode charDevice(String path, long major, long minor) {
            return new DeviceNode(path, null, "c", major, minor, null, null, null);
        }
    }

    /**
     * A mount.
     *
     * @param hostPath source on the host
     * @param containerPath destination in the container
     * @param type mount type (null = unset, a bind mount by its options)
     * @param options mount options
     */
    public record Mount(String hostPath, String containerPath, String type, List<String> options) {
        public Mount {
            Objects.requireNonNull(hostPath, "hostPath");
            Objects.requireNonNull(containerPath, "containerPath");
            options = options == null ? List.of() : List.copyOf(options);
        }
    }

    /**
     * An OCI hook.
     *
     * @param hookName the OCI hook point, e.g. {@code createContainer}
     * @param path the executable on the host
     * @param args argv, {@code args[0]} being the program name
     * @param env {@code KEY=value}
     * @param timeout seconds, null = none
     */
    public record Hook(
            String hookName, String path, List<String> args, List<String> env, Long timeout) {
        public Hook {
            Objects.requireNonNull(hookName, "hookName");
            Objects.requireNonNull(path, "path");
            args = args == null ? List.of() : List.copyOf(args);
            env = env == null ? List.of() : List.copyOf(env);
        }
    }
}
