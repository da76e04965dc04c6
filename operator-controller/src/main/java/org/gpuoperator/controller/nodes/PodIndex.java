package org.gpuoperator.controller.nodes;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandRenderer;

/** Operand pods by node: one pass over the informer cache per reconcile, O(1) lookups after. */
public final class PodIndex {

    /** One operand pod as the gate and the status see it. */
    public record PodState(boolean ready, String templateHash) {}

    private final Map<String, Map<Operand, PodState>> byNode = new HashMap<>();

    public static PodIndex of(Iterable<Pod> pods) {
        PodIndex index = new PodIndex();
        for (Pod pod : pods) {
            index.add(pod);
        }
        return index;
    }

    private void add(Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null || pod.getSpec() == null
                || pod.getSpec().getNodeName() == null) {
            return;
        }
        Map<String, String> labels = pod.getMetadata().getLabels();
        Operand operand = labels == null ? null : Operand.byModule(labels.get(OperandRenderer.APP_NAME_LABEL));
        if (operand == null) {
            return;
        }
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String hash = annotations == null ? null : annotations.get(OperandRenderer.TEMPLATE_HASH_ANNOTATION);
        PodState state = new PodState(isReady(pod), hash);
        // two pods of one operand on a node (rollout): a Ready one wins
        byNode.computeIfAbsent(pod.getSpec().getNodeName(), n -> new EnumMap<>(Operand.class))
                .merge(operand, state, (a, b) -> a.ready() ? a : b);
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

    public Set<Operand> readyOn(String node) {
        Map<Operand, PodState> pods = byNode.get(node);
        if (pods == null) {
            return Set.of();
        }
        Set<Operand> ready = EnumSet.noneOf(Operand.class);
        pods.forEach((operand, state) -> {
            if (state.ready()) {
                ready.add(operand);
            }
        });
        return ready;
    }

    public PodState pod(String node, Operand operand) {
        Map<Operand, PodState> pods = byNode.get(node);
        return pods == null ? null : pods.get(operand);
    }
}
