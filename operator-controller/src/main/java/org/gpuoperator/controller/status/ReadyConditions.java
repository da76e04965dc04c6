package org.gpuoperator.controller.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.List;
import org.gpuoperator.api.v1.ClusterPolicyConditions;

/**
 * The {@code Ready} and {@code Error} conditions of the ClusterPolicy and of each NVIDIADriver
 * (pure): a condition keeps its lastTransitionTime while its status stays.
 *
 * @see ClusterPolicyConditions
 */
public final class ReadyConditions {

    private ReadyConditions() {}

    /** Ready True or False with this reason and message; Error False. */
    public static List<Condition> of(
            boolean ready, String reason, String message, List<Condition> previous, String now) {
        return List.of(
                condition(
                        ClusterPolicyConditions.TYPE_READY,
                        ready ? "True" : "False",
                        reason,
                        message,
                        previous,
                        now),
                condition(ClusterPolicyConditions.TYPE_ERROR, "False", reason, "", previous, now));
    }

    /** Ready False and Error True, both with this reason and message. */
    public static List<Condition> error(
            String reason, String message, List<Condition> previous, String now) {
        return List.of(
                condition(
                        ClusterPolicyConditions.TYPE_READY,
                        "False",
                        reason,
                        message,
                        previous,
                        now),
                condition(
                        ClusterPolicyConditions.TYPE_ERROR,
                        "True",
                        reason,
                        message,
                        previous,
                        now));
    }

    /**
     * lastTransitionTime moves only when the condition's status changes, as Kubernetes conventions
     * ask.
     */
    private static Condition condition(
            String type,
            String status,
            String reason,
            String message,
            List<Condition> previous,
            String now) {
        String since = now;
        if (previous != null) {
            for (Condition c : previous) {
                if (type.equals(c.getType())
                        && status.equals(c.getStatus())
                        && c.getLastTransitionTime() != null) {
                    since = c.getLastTransitionTime();
                }
            }
        }
        return new ConditionBuilder()
                .withType(type)
                .withStatus(status)
                .withReason(reason)
                .withMessage(message)
                .withLastTransitionTime(since)
                .build();
    }
}
