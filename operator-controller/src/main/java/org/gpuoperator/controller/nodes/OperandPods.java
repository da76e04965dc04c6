package org.gpuoperator.controller.nodes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;

/** The operand pods on one node, as the gate and the status see them. */
public final class OperandPods {

    /**
     * One operand pod: Ready or not, the template hash it was created from, and why it cannot start
     * when the kubelet cannot pull one of its images (else null).
     */
    public record PodState(boolean ready, String templateHash, String pullFailure) {
        public PodState(boolean ready, String templateHash) {
            this(ready, templateHash, null);
        }
    }

    /** The kubelet's waiting reasons of a container whose image cannot be pulled. */
    static final Set<String> PULL_FAILURES = Set.of("ErrImagePull", "ImagePullBackOff");

    private OperandPods() {}

    /** The node a pod is bound to, as an informer index key: none until it is scheduled. */
    public static List<String> nodeOf(Pod pod) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return node == null ? List.of() : List.of(node);
    }

    /**
     * Operand → pod state for the pods of one node; pods being deleted and foreign pods do not
     * count.
     */
    public static Map<Operand, PodState> onNode(Iterable<Pod> podsOfNode) {
        Map<Operand, PodState> byOperand = new EnumMap<>(Operand.class);
        for (Pod pod : podsOfNode) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            Map<String, String> labels = pod.getMetadata().getLabels();
            Operand operand =
                    labels == null
                            ? null
                            : Operand.byModule(labels.get(PodContract.APP_NAME_LABEL));
            if (operand == null) {
                continue;
            }
            Map<String, String> annotations = pod.getMetadata().getAnnotations();
            String hash =
                    annotations == null
                            ? null
                            : annotations.get(PodContract.TEMPLATE_HASH_ANNOTATION);
            // two pods of one operand on a node (rollout): a Ready one wins
            byOperand.merge(
                    operand,
                    new PodState(isReady(pod), hash, pullFailure(pod)),
                    (a, b) -> a.ready() ? a : b);
        }
        return byOperand;
    }

    /**
     * {@code pod <namespace>/<name> on node <node> cannot pull image <image>: <reason>: <kubelet's
     * message>} for the first container (init containers first) waiting with {@code ErrImagePull}
     * or {@code ImagePullBackOff}; null when none is.
     */
    public static String pullFailure(Pod pod) {
        if (pod.getStatus() == null) {
            return null;
        }
        List<ContainerStatus> statuses = new ArrayList<>();
        if (pod.getStatus().getInitContainerStatuses() != null) {
            statuses.addAll(pod.getStatus().getInitContainerStatuses());
        }
        if (pod.getStatus().getContainerStatuses() != null) {
            statuses.addAll(pod.getStatus().getContainerStatuses());
        }
        for (ContainerStatus c : statuses) {
            ContainerStateWaiting waiting = c.getState() == null ? null : c.getState().getWaiting();
            if (waiting == null || !PULL_FAILURES.contains(waiting.getReason())) {
                continue;
            }
            String message = waiting.getMessage();
            return "pod "
                    + pod.getMetadata().getNamespace()
                    + "/"
                    + pod.getMetadata().getName()
                    + " on node "
                    + (pod.getSpec() == null ? null : pod.getSpec().getNodeName())
                    + " cannot pull image "
                    + imageOf(pod, c)
                    + ": "
                    + waiting.getReason()
                    + (message == null || message.isBlank() ? "" : ": " + message);
        }
        return null;
    }

    /** The image the pod spec names for the container (the status may hold a resolved one). */
    private static String imageOf(Pod pod, ContainerStatus status) {
        if (pod.getSpec() != null) {
            List<Container> all = new ArrayList<>();
            if (pod.getSpec().getInitContainers() != null) {
                all.addAll(pod.getSpec().getInitContainers());
            }
            if (pod.getSpec().getContainers() != null) {
                all.addAll(pod.getSpec().getContainers());
            }
            for (Container c : all) {
                if (c.getName().equals(status.getName()) && c.getImage() != null) {
                    return c.getImage();
                }
            }
        }
        return status.getImage();
    }

    public static Set<Operand> ready(Map<Operand, PodState> pods) {
        Set<Operand> ready = EnumSet.noneOf(Operand.class);
        pods.forEach(
                (operand, state) -> {
                    if (state.ready()) {
                        ready.add(operand);
                    }
                });
        return ready;
    }

    public static boolean isReady(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
            return false;
        }
        for (PodCondition c : pod.getStatus().getConditions()) {
            if ("Ready".equals(c.getType())) {
                return "True".equals(c.getStatus());
            }
        }
        return false;
    }
}
