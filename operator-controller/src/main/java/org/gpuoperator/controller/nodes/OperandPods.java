package org.gpuoperator.controller.nodes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;

/** The operand pods on one node, as the gate and the status see them. */
public final class OperandPods {

    /** One operand pod: Ready or not, and the template hash it was created from. */
    public record PodState(boolean ready, String templateHash) {}

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
            byOperand.merge(operand, new PodState(isReady(pod), hash), (a, b) -> a.ready() ? a : b);
        }
        return byOperand;
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
