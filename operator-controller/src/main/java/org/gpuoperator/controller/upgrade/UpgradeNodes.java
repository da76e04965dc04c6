package org.gpuoperator.controller.upgrade;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.controller.nvidiadriver.DriverHandover;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.PodContract;

/**
 * Builds the machine's view of a node from the API objects (pure): what the wiring passes to {@link
 * UpgradeMachine#plan}.
 */
public final class UpgradeNodes {

    private UpgradeNodes() {}

    /**
     * @param podsOnNode every pod bound to the node (spec.nodeName): the operand pods (told apart
     *     by their {@code app} label) and the others
     * @param driverTemplateHash the driver DaemonSet's pod template hash ({@link
     *     PodContract#TEMPLATE_HASH_ANNOTATION}): a driver pod with another one is outdated
     * @param evictionBlocked {@code namespace/name} of the pods whose last eviction was refused
     */
    public static UpgradeNode of(
            Node node,
            List<Pod> podsOnNode,
            String driverTemplateHash,
            Set<String> evictionBlocked) {
        return of(node, podsOnNode, driverTemplateHash, evictionBlocked, GpuClaims.UNREADABLE);
    }

    /**
     * As above.
     *
     * @param claims which ResourceClaims hold a GPU (a pod holding one is a GPU pod)
     */
    public static UpgradeNode of(
            Node node,
            List<Pod> podsOnNode,
            String driverTemplateHash,
            Set<String> evictionBlocked,
            GpuClaims claims) {
        return of(node, podsOnNode, driverTemplateHash, null, evictionBlocked, claims);
    }

    /**
     * As above.
     *
     * @param driverPool the pool of the DaemonSet that is to run the node's driver, null for the
     *     ClusterPolicy's: a driver pod of another DaemonSet, or one left by a deleted DaemonSet
     *     (no controller), is outdated and takes the full path ({@link DriverHandover})
     */
    public static UpgradeNode of(
            Node node,
            List<Pod> podsOnNode,
            String driverTemplateHash,
            String driverPool,
            Set<String> evictionBlocked,
            GpuClaims claims) {
        // during a handover the old pod is the one to replace, even once the new one is there
        Optional<Pod> driver =
                podsOnNode.stream()
                        .filter(p -> isOperandPod(p, Operand.DRIVER))
                        .min(
                                Comparator.comparing(
                                                (Pod p) ->
                                                        p.getMetadata().getDeletionTimestamp()
                                                                != null)
                                        .thenComparing(p -> DriverHandover.isTargets(p, driverPool))
                                        .thenComparing(UpgradeNodes::newestFirst));
        Optional<Pod> validator = operandPod(podsOnNode, Operand.VALIDATOR);
        List<UpgradeNode.OperandPod> driverUsers = new ArrayList<>();
        List<NodePod> others = new ArrayList<>();
        for (Pod p : podsOnNode) {
            Optional<Operand> operand = operandOf(p);
            if (operand.isPresent()) {
                if (DRIVER_USERS.contains(operand.get())) {
                    driverUsers.add(
                            new UpgradeNode.OperandPod(
                                    p.getMetadata().getNamespace(),
                                    p.getMetadata().getName(),
                                    instant(p.getMetadata().getCreationTimestamp()),
                                    p.getMetadata().getDeletionTimestamp() != null));
                }
            } else {
                others.add(
                        NodePod.of(
                                p,
                                evictionBlocked.contains(
                                        p.getMetadata().getNamespace()
                                                + "/"
                                                + p.getMetadata().getName()),
                                claims));
            }
        }
        return new UpgradeNode(
                node.getMetadata().getName(),
                "True".equals(nodeCondition(node, "Ready")),
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable()),
                node.getMetadata().getLabels(),
                node.getMetadata().getAnnotations(),
                driver.map(p -> driverPod(p, driverTemplateHash, driverPool)),
                validator.map(
                        p ->
                                new UpgradeNode.ValidatorPod(
                                        p.getMetadata().getNamespace(),
                                        p.getMetadata().getName(),
                                        ready(p),
                                        readyCondition(p)
                                                .filter(c -> "True".equals(c.getStatus()))
                                                .map(c -> instant(c.getLastTransitionTime()))
                                                .orElse(null),
                                        p.getMetadata().getDeletionTimestamp() != null)),
                driverUsers,
                others);
    }

    private static UpgradeNode.DriverPod driverPod(Pod p, String templateHash, String pool) {
        Map<String, String> annotations =
                p.getMetadata().getAnnotations() == null
                        ? Map.of()
                        : p.getMetadata().getAnnotations();
        // a pod of another driver DaemonSet, or an orphan, is replaced whatever its hash
        boolean targets = DriverHandover.isTargets(p, pool);
        boolean inSync =
                targets
                        && (templateHash == null
                                || templateHash.equals(
                                        annotations.get(PodContract.TEMPLATE_HASH_ANNOTATION)));
        int restarts =
                p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                        ? 0
                        : p.getStatus().getContainerStatuses().stream()
                                .map(ContainerStatus::getRestartCount)
                                .filter(r -> r != null)
                                .max(Integer::compare)
                                .orElse(0);
        String digest = PodContract.configDigestOf(templateHash);
        boolean restartOnly =
                !inSync
                        && targets
                        && digest != null
                        && digest.equals(
                                PodContract.configDigestOf(
                                        annotations.get(PodContract.TEMPLATE_HASH_ANNOTATION)));
        return new UpgradeNode.DriverPod(
                p.getMetadata().getNamespace(),
                p.getMetadata().getName(),
                inSync,
                ready(p),
                restarts,
                driverVersion(p),
                p.getStatus() == null ? null : instant(p.getStatus().getStartTime()),
                restartOnly);
    }

    /** The agent's {@code DRIVER_VERSION} env, as the controller renders it. */
    private static String driverVersion(Pod p) {
        if (p.getSpec() == null || p.getSpec().getContainers() == null) {
            return null;
        }
        for (Container c : p.getSpec().getContainers()) {
            if (c.getEnv() != null) {
                for (EnvVar e : c.getEnv()) {
                    if ("DRIVER_VERSION".equals(e.getName()) && e.getValue() != null) {
                        return e.getValue();
                    }
                }
            }
        }
        return null;
    }

    /** The operand's pod on the node: one not being deleted first, then the newest. */
    private static Optional<Pod> operandPod(List<Pod> pods, Operand operand) {
        return pods.stream()
                .filter(p -> isOperandPod(p, operand))
                .min(
                        Comparator.comparing(
                                        (Pod p) -> p.getMetadata().getDeletionTimestamp() != null)
                                .thenComparing(UpgradeNodes::newestFirst));
    }

    private static int newestFirst(Pod a, Pod b) {
        return created(b).compareTo(created(a));
    }

    private static Instant created(Pod p) {
        return Optional.ofNullable(instant(p.getMetadata().getCreationTimestamp()))
                .orElse(Instant.EPOCH);
    }

    /**
     * The operands whose pods open the driver: all but the driver and the toolkit (the validator
     * too: its report must be about the new driver).
     */
    static final Set<Operand> DRIVER_USERS =
            java.util.EnumSet.complementOf(
                    java.util.EnumSet.of(Operand.DRIVER, Operand.CONTAINER_TOOLKIT));

    /** Whether the operand's pods open the driver, so a driver upgrade pauses them. */
    public static boolean usesDriver(Operand operand) {
        return DRIVER_USERS.contains(operand);
    }

    private static Optional<Operand> operandOf(Pod p) {
        for (Operand o : Operand.values()) {
            if (isOperandPod(p, o)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /**
     * By the {@code app} label: the operand's DaemonSet's, or one of its companions' (the device
     * plugin's MPS control daemon, which holds the GPUs open and leaves with the device plugin's
     * deploy label).
     */
    public static boolean isOperandPod(Pod p, Operand operand) {
        Map<String, String> labels = p.getMetadata().getLabels();
        String app = labels == null ? null : labels.get(PodContract.APP_LABEL);
        return app != null
                && (operand.daemonSetName().equals(app)
                        || OperandModels.companionDaemonSets(operand).contains(app));
    }

    private static boolean ready(Pod p) {
        return readyCondition(p).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    private static Optional<PodCondition> readyCondition(Pod p) {
        if (p.getStatus() == null || p.getStatus().getConditions() == null) {
            return Optional.empty();
        }
        return p.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .findFirst();
    }

    private static String nodeCondition(Node n, String type) {
        if (n.getStatus() == null || n.getStatus().getConditions() == null) {
            return null;
        }
        return n.getStatus().getConditions().stream()
                .filter(c -> type.equals(c.getType()))
                .map(c -> c.getStatus())
                .findFirst()
                .orElse(null);
    }

    private static Instant instant(String rfc3339) {
        if (rfc3339 == null) {
            return null;
        }
        try {
            return Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
