package org.gpuoperator.e2e.apiserver;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;

/**
 * kube-apiserver's decision on an eviction, with the numbers the disruption controller would have
 * put in each PodDisruptionBudget's status computed on the spot (the simulated cluster runs no such
 * controller). Pure: the pod, the budgets and the pods of its namespace in, a verdict out.
 *
 * <p>One simplification: the expected pod count is the number of pods the budget selects now (not
 * being deleted), where the disruption controller asks their controllers' scale for percentages and
 * {@code maxUnavailable}.
 */
public final class DisruptionBudgets {

    private DisruptionBudgets() {}

    /**
     * What the disruption controller would write in a budget's status.
     *
     * @param expectedPods the pods the budget selects (not being deleted)
     * @param currentHealthy those of them Running with condition Ready True
     * @param desiredHealthy the healthy pods the budget asks for
     * @param disruptionsAllowed currentHealthy - desiredHealthy, never below 0
     */
    public record Health(
            int expectedPods, int currentHealthy, int desiredHealthy, int disruptionsAllowed) {}

    /** The answer to an eviction request. */
    public sealed interface Verdict {}

    /**
     * The pod may go.
     *
     * @param budget the budget that was consulted, null when none was (no budget, or a pod that is
     *     terminal, pending or already being deleted)
     * @param health that budget's numbers before this eviction; null with the budget
     * @param counted whether the eviction uses up one allowed disruption (a not-Ready pod does not)
     */
    public record Allowed(PodDisruptionBudget budget, Health health, boolean counted)
            implements Verdict {}

    /** A budget allows no disruption now: kube-apiserver's 429. */
    public record Refused(PodDisruptionBudget budget, Health health) implements Verdict {

        public static final String MESSAGE =
                "Cannot evict pod as it would violate the pod's disruption budget.";

        /** The cause kube-apiserver attaches, reason {@code DisruptionBudget}. */
        public String cause() {
            return "The disruption budget %s needs %d healthy pods and has %d currently"
                    .formatted(
                            budget.getMetadata().getName(),
                            health.desiredHealthy(),
                            health.currentHealthy());
        }
    }

    /** More than one budget selects the pod: kube-apiserver refuses with a 500. */
    public record MoreThanOneBudget(List<String> budgets) implements Verdict {

        public static final String MESSAGE =
                "This pod has more than one PodDisruptionBudget, which the eviction subresource"
                        + " does not support.";
    }

    /**
     * The verdict on evicting {@code pod}.
     *
     * @param budgets the budgets in the pod's namespace
     * @param podsInNamespace every pod in the pod's namespace, the pod included
     * @throws IllegalArgumentException for a budget whose minAvailable or maxUnavailable is neither
     *     a number nor a percentage, naming the budget and the field
     */
    public static Verdict evict(
            Pod pod, List<PodDisruptionBudget> budgets, List<Pod> podsInNamespace) {
        // terminal and pending pods have already disrupted (or never served): no budget applies
        if (isTerminalOrPending(pod) || isBeingDeleted(pod)) {
            return new Allowed(null, null, false);
        }
        List<PodDisruptionBudget> covering =
                budgets.stream().filter(b -> selects(b.getSpec().getSelector(), pod)).toList();
        if (covering.size() > 1) {
            return new MoreThanOneBudget(
                    covering.stream().map(b -> b.getMetadata().getName()).toList());
        }
        if (covering.isEmpty()) {
            return new Allowed(null, null, false);
        }
        PodDisruptionBudget budget = covering.getFirst();
        Health health = health(budget, podsInNamespace);
        if (!isReady(pod)) {
            // an unhealthy pod adds nothing to the budget: it may go while the budget is met,
            // or always with unhealthyPodEvictionPolicy AlwaysAllow
            boolean alwaysAllow =
                    "AlwaysAllow".equals(budget.getSpec().getUnhealthyPodEvictionPolicy());
            boolean met =
                    health.desiredHealthy() > 0
                            && health.currentHealthy() >= health.desiredHealthy();
            if (alwaysAllow || met) {
                return new Allowed(budget, health, false);
            }
        }
        return health.disruptionsAllowed() > 0
                ? new Allowed(budget, health, true)
                : new Refused(budget, health);
    }

    /** The budget's status numbers over the pods of its namespace. */
    public static Health health(PodDisruptionBudget budget, List<Pod> podsInNamespace) {
        List<Pod> selected =
                podsInNamespace.stream()
                        .filter(p -> !isBeingDeleted(p))
                        .filter(p -> selects(budget.getSpec().getSelector(), p))
                        .toList();
        int expected = selected.size();
        int healthy = (int) selected.stream().filter(DisruptionBudgets::isHealthy).count();
        String name = budget.getMetadata().getName();
        IntOrString maxUnavailable = budget.getSpec().getMaxUnavailable();
        IntOrString minAvailable = budget.getSpec().getMinAvailable();
        int desired;
        if (maxUnavailable != null) {
            desired =
                    Math.max(
                            0,
                            expected
                                    - scaled(
                                            maxUnavailable, expected, name, "spec.maxUnavailable"));
        } else if (minAvailable != null) {
            desired = scaled(minAvailable, expected, name, "spec.minAvailable");
        } else {
            desired = 0;
        }
        return new Health(expected, healthy, desired, Math.max(0, healthy - desired));
    }

    /**
     * A number as is, or a percentage of {@code total} rounded up, as the disruption controller
     * scales both fields.
     */
    static int scaled(IntOrString value, int total, String budget, String field) {
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal() == null ? "" : value.getStrVal().strip();
        if (s.endsWith("%")) {
            try {
                int percent = Integer.parseInt(s.substring(0, s.length() - 1));
                return (int) Math.ceil(percent * (double) total / 100);
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException(
                "PodDisruptionBudget %s: %s \"%s\" is neither a number nor a percentage"
                        .formatted(budget, field, s));
    }

    /**
     * Whether a budget's selector selects the pod, as the eviction subresource reads it: a missing
     * or empty selector selects nothing, and so does one with an unknown operator.
     */
    public static boolean selects(LabelSelector selector, Pod pod) {
        if (selector == null) {
            return false;
        }
        Map<String, String> matchLabels =
                selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
        List<LabelSelectorRequirement> expressions =
                selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
        if (matchLabels.isEmpty() && expressions.isEmpty()) {
            return false;
        }
        Map<String, String> labels =
                pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        return matchLabels.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))
                && expressions.stream().allMatch(r -> matches(r, labels));
    }

    private static boolean matches(LabelSelectorRequirement r, Map<String, String> labels) {
        String value = labels.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (String.valueOf(r.getOperator())) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> false;
        };
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    /** A pod without a phase is one nothing reported on yet: the API server's Pending. */
    private static boolean isTerminalOrPending(Pod pod) {
        String phase = phase(pod);
        return phase == null
                || phase.isEmpty()
                || "Succeeded".equals(phase)
                || "Failed".equals(phase)
                || "Pending".equals(phase);
    }

    private static boolean isBeingDeleted(Pod pod) {
        return pod.getMetadata().getDeletionTimestamp() != null;
    }

    private static boolean isReady(Pod pod) {
        return pod.getStatus() != null
                && pod.getStatus().getConditions() != null
                && pod.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** What the disruption controller counts as healthy: Running and Ready. */
    private static boolean isHealthy(Pod pod) {
        return "Running".equals(phase(pod)) && isReady(pod);
    }
}
