package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * Which container runtime the toolkit configures, from the nodes' {@code
 * status.nodeInfo.containerRuntimeVersion} ({@code containerd://1.7.2}, {@code cri-o://1.30.0},
 * {@code docker://24.0.7}), as upstream: the first GPU node's runtime (a node labelled {@code
 * nvidia.com/gpu.present=true} or with an NVIDIA PCI device from NFD), else the first node's;
 * containerd when no node says. Nodes that run another runtime than the rendered one give a warning
 * naming them and their runtime, in {@code status.warnings}. Pure: the reconciler passes the node
 * informer cache's nodes, {@code render} the nodes file's.
 */
public final class ContainerRuntimeDetection {

    private ContainerRuntimeDetection() {}

    /** The runtimes the toolkit agent configures, by its {@code RUNTIME} value. */
    public enum ContainerRuntime {
        CONTAINERD("containerd"),
        CRIO("crio"),
        DOCKER("docker");

        private final String agentName;

        ContainerRuntime(String agentName) {
            this.agentName = agentName;
        }

        /** The toolkit agent's {@code --runtime} / {@code RUNTIME} value. */
        public String agentName() {
            return agentName;
        }

        /** From the agent's name ({@code containerd}, {@code crio}, {@code docker}). */
        public static Optional<ContainerRuntime> ofAgentName(String name) {
            for (ContainerRuntime r : values()) {
                if (r.agentName.equals(name)) {
                    return Optional.of(r);
                }
            }
            return Optional.empty();
        }

        /** From a {@code containerRuntimeVersion} such as {@code cri-o://1.30.0}. */
        static Optional<ContainerRuntime> ofRuntimeVersion(String version) {
            if (version == null) {
                return Optional.empty();
            }
            int sep = version.indexOf("://");
            String scheme =
                    (sep < 0 ? version : version.substring(0, sep)).toLowerCase(Locale.ROOT);
            return switch (scheme) {
                case "containerd" -> Optional.of(CONTAINERD);
                case "cri-o", "crio" -> Optional.of(CRIO);
                case "docker" -> Optional.of(DOCKER);
                default -> Optional.empty();
            };
        }
    }

    /**
     * The runtime to render for, and the runtimes the nodes run.
     *
     * @param runtime the first (GPU) node's runtime, containerd when no node says
     * @param nodesByRuntime the runtime ({@link ContainerRuntime#agentName}, or the version's
     *     scheme when the toolkit cannot configure it) to the nodes that run it, GPU nodes only
     *     when there are any
     * @param gpuNodes whether {@code nodesByRuntime} holds GPU nodes (else every node)
     * @param unsupported one line per node whose runtime the toolkit cannot configure
     */
    public record Detected(
            ContainerRuntime runtime,
            Map<String, List<String>> nodesByRuntime,
            boolean gpuNodes,
            List<String> unsupported) {
        public Detected {
            Map<String, List<String>> copy = new LinkedHashMap<>();
            nodesByRuntime.forEach((r, names) -> copy.put(r, List.copyOf(names)));
            nodesByRuntime = Collections.unmodifiableMap(copy);
            unsupported = List.copyOf(unsupported);
        }

        /** The warnings when the toolkit is rendered for the detected runtime. */
        public List<String> warnings() {
            return warnings(runtime);
        }

        /**
         * One line each: a runtime the toolkit cannot configure, then the nodes that run another
         * runtime than {@code rendered}, the one the toolkit (and the validator's CRI socket) is
         * rendered for.
         */
        public List<String> warnings(ContainerRuntime rendered) {
            List<String> out = new ArrayList<>(unsupported);
            List<String> others = new ArrayList<>();
            nodesByRuntime.forEach(
                    (r, names) -> {
                        // a runtime the toolkit cannot configure has its own line above
                        if (!r.equals(rendered.agentName())
                                && ContainerRuntime.ofAgentName(r).isPresent()) {
                            others.add(r + " (" + String.join(", ", names) + ")");
                        }
                    });
            if (!others.isEmpty()) {
                out.add(
                        (gpuNodes ? "GPU nodes" : "nodes")
                                + " run a container runtime the toolkit is not rendered for: "
                                + String.join("; ", others)
                                + "; it is rendered for "
                                + rendered.agentName()
                                + (rendered == runtime
                                        ? ", the first node's runtime,"
                                        : ", spec.toolkit.env RUNTIME,")
                                + " and cannot work on them");
            }
            return out;
        }
    }

    /** Where the runtime warnings go in {@code status.warnings}: the toolkit renders for one. */
    public static final String WARNING_PATH = "spec.toolkit";

    /**
     * The runtime warnings for {@code status.warnings} (and {@code render}'s stderr), against the
     * runtime the policy is rendered for: the toolkit's {@code RUNTIME} after {@link #apply}, the
     * detected one when that is not a runtime the toolkit knows (the render then fails on it).
     */
    public static List<PolicyWarning> statusWarnings(Detected detected, PolicySettings applied) {
        ContainerRuntime rendered =
                applied.operand(Operand.CONTAINER_TOOLKIT).env().stream()
                        .filter(e -> RUNTIME_ENV.equals(e.getName()))
                        .findFirst()
                        .flatMap(e -> ContainerRuntime.ofAgentName(e.getValue()))
                        .orElse(detected.runtime());
        return detected.warnings(rendered).stream()
                .map(w -> new PolicyWarning(WARNING_PATH, w))
                .toList();
    }

    static final String GPU_PRESENT_LABEL = "nvidia.com/gpu.present";
    static final String NFD_NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present";

    /** The toolkit agent's env that names the runtime. */
    public static final String RUNTIME_ENV = "RUNTIME";

    public static Detected detect(List<Node> nodes) {
        List<Node> gpuNodes = nodes.stream().filter(ContainerRuntimeDetection::isGpuNode).toList();
        List<Node> candidates = gpuNodes.isEmpty() ? nodes : gpuNodes;
        List<String> unsupported = new ArrayList<>();
        Map<String, List<String>> byRuntime = new LinkedHashMap<>();
        ContainerRuntime chosen = null;
        for (Node n : candidates) {
            String version = runtimeVersion(n);
            if (version == null) {
                continue;
            }
            Optional<ContainerRuntime> r = ContainerRuntime.ofRuntimeVersion(version);
            String key = r.map(ContainerRuntime::agentName).orElse(scheme(version));
            byRuntime.computeIfAbsent(key, k -> new ArrayList<>()).add(name(n));
            if (chosen == null && r.isPresent()) {
                chosen = r.get();
            }
            if (r.isEmpty()) {
                unsupported.add(
                        "node "
                                + name(n)
                                + " runs container runtime '"
                                + version
                                + "', which the toolkit cannot configure (containerd, cri-o or docker)");
            }
        }
        ContainerRuntime runtime = chosen == null ? ContainerRuntime.CONTAINERD : chosen;
        return new Detected(runtime, byRuntime, !gpuNodes.isEmpty(), unsupported);
    }

    /**
     * The policy with the detected runtime as the toolkit's {@code RUNTIME} env, ahead of the
     * user's {@code toolkit.env}; a {@code RUNTIME} the user set wins and nothing is added.
     */
    public static PolicySettings apply(PolicySettings policy, ContainerRuntime runtime) {
        Operand toolkit = Operand.CONTAINER_TOOLKIT;
        if (!policy.operands().containsKey(toolkit)) {
            return policy;
        }
        OperandSettings settings = policy.operand(toolkit);
        if (settings.env().stream().anyMatch(e -> RUNTIME_ENV.equals(e.getName()))) {
            return policy;
        }
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar(RUNTIME_ENV, runtime.agentName(), null));
        env.addAll(settings.env());
        return policy.withOperand(toolkit, settings.withEnv(env));
    }

    static boolean isGpuNode(Node n) {
        Map<String, String> labels =
                n.getMetadata() == null || n.getMetadata().getLabels() == null
                        ? Map.of()
                        : n.getMetadata().getLabels();
        return "true".equals(labels.get(GPU_PRESENT_LABEL))
                || "true".equals(labels.get(NFD_NVIDIA_PCI_LABEL));
    }

    private static String runtimeVersion(Node n) {
        if (n.getStatus() == null || n.getStatus().getNodeInfo() == null) {
            return null;
        }
        String v = n.getStatus().getNodeInfo().getContainerRuntimeVersion();
        return v == null || v.isBlank() ? null : v;
    }

    private static String scheme(String version) {
        int sep = version.indexOf("://");
        return sep < 0 ? version : version.substring(0, sep);
    }

    private static String name(Node n) {
        return n.getMetadata() == null ? "?" : n.getMetadata().getName();
    }
}
