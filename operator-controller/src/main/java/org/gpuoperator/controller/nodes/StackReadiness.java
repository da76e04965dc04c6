package org.gpuoperator.controller.nodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.gpuoperator.controller.operand.Operand;

/**
 * The node condition {@code GPUStackReady} and the opt-in taint {@code
 * nvidia.com/gpu-not-ready:NoSchedule}, planned as pure functions of what the node carries now.
 */
public final class StackReadiness {

    public static final String CONDITION = "GPUStackReady";
    public static final String TAINT_KEY = "nvidia.com/gpu-not-ready";
    public static final String TAINT_EFFECT = "NoSchedule";

    private StackReadiness() {}

    /** The condition's desired value: status True/False, a reason word and a message. */
    public record Condition(String status, String reason, String message) {}

    /**
     * The condition for a GPU node.
     *
     * @param validatorReady the node's validator pod is Ready (every enabled layer validated)
     * @param stuckAt the gate the node waits at, or null
     * @param report what the validator reported on the node
     */
    public static Condition condition(
            boolean validatorReady, Operand stuckAt, ValidationReport report) {
        if (validatorReady) {
            return new Condition("True", "Validated", "every enabled layer validated");
        }
        String step = report.blockingStep();
        if (step != null) {
            String message = report.summary();
            return new Condition("False", reasonWord(step), message);
        }
        if (stuckAt != null && stuckAt != Operand.VALIDATOR) {
            return new Condition(
                    "False",
                    reasonWord(stuckAt.id()),
                    "waiting for " + stuckAt.daemonSetName() + " on this node");
        }
        String message = report.summary();
        return new Condition(
                "False",
                "WaitingForValidator",
                message != null ? message : "the nvidia-operator-validator pod is not Ready");
    }

    /**
     * Whether the condition must be written: absent, or status/reason/message differ. The
     * transition time is not compared (it only changes when the status does).
     */
    public static boolean needsWrite(
            Condition desired, String status, String reason, String message) {
        return !(Objects.equals(desired.status(), status)
                && Objects.equals(desired.reason(), reason)
                && Objects.equals(desired.message(), message));
    }

    /** Whether a taint is ours: key {@code nvidia.com/gpu-not-ready}, effect NoSchedule. */
    public static boolean ours(String key, String effect) {
        return TAINT_KEY.equals(key) && TAINT_EFFECT.equals(effect);
    }

    /**
     * The node's taints after this pass, or null when they stay as they are. Our taint is kept
     * while the opt-in is on and the node is a GPU node whose condition is not True; otherwise it
     * comes off. Other taints are kept as they are, in their order.
     *
     * @param ours tells our taint from the others
     * @param ourTaint the taint to add
     */
    public static <T> List<T> taints(
            List<T> current,
            Predicate<T> ours,
            T ourTaint,
            boolean optIn,
            boolean gpuNode,
            boolean stackReady) {
        boolean want = optIn && gpuNode && !stackReady;
        boolean has = current.stream().anyMatch(ours);
        if (want == has) {
            return null;
        }
        List<T> next = new ArrayList<>();
        for (T t : current) {
            if (!ours.test(t)) {
                next.add(t);
            }
        }
        if (want) {
            next.add(ourTaint);
        }
        return next;
    }

    /** PascalCase of a step or operand id, e.g. container-toolkit → WaitingForContainerToolkit. */
    static String reasonWord(String step) {
        StringBuilder word = new StringBuilder("WaitingFor");
        for (String part : step.split("-")) {
            if (!part.isEmpty()) {
                word.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return word.toString();
    }
}
