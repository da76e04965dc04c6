package org.gpuoperator.controller.nodes;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the validator reported on its Node (pure): annotation {@code
 * nvidia.com/gpu-operator.validation} = {@code driver=<state> toolkit=<state> cuda=<state>
 * plugin=<state>} (ready|waiting|failed|disabled) and {@code ...-reason} = the first failing or
 * waiting check and why.
 *
 * @param steps step → state, in the validator's order; empty when it reported nothing
 * @param reason the reason annotation, or null
 * @param pod the validator pod that wrote it ({@code ...validation-pod}), or null
 */
public record ValidationReport(Map<String, String> steps, String reason, String pod) {

    public static final String ANNOTATION = "nvidia.com/gpu-operator.validation";
    public static final String REASON_ANNOTATION = "nvidia.com/gpu-operator.validation-reason";
    public static final String POD_ANNOTATION = "nvidia.com/gpu-operator.validation-pod";

    public ValidationReport {
        steps = Map.copyOf(steps);
        reason = reason == null || reason.isBlank() ? null : reason.trim();
        pod = pod == null || pod.isBlank() ? null : pod.trim();
    }

    public ValidationReport(Map<String, String> steps, String reason) {
        this(steps, reason, null);
    }

    public static ValidationReport of(Map<String, String> annotations) {
        if (annotations == null) {
            return new ValidationReport(Map.of(), null, null);
        }
        Map<String, String> steps = new LinkedHashMap<>();
        String text = annotations.get(ANNOTATION);
        if (text != null) {
            for (String part : text.trim().split("\\s+")) {
                int eq = part.indexOf('=');
                if (eq > 0 && eq < part.length() - 1) {
                    steps.put(part.substring(0, eq), part.substring(eq + 1));
                }
            }
        }
        return new ValidationReport(
                steps, annotations.get(REASON_ANNOTATION), annotations.get(POD_ANNOTATION));
    }

    public boolean reported() {
        return !steps.isEmpty() || reason != null;
    }

    /**
     * The first step in check order that is failed or waiting, e.g. {@code driver}; null when none
     * is.
     */
    public String blockingStep() {
        for (String step : new String[] {"driver", "toolkit", "cuda", "plugin"}) {
            String state = steps.get(step);
            if ("failed".equals(state) || "waiting".equals(state)) {
                return step;
            }
        }
        return null;
    }

    /** One line for the status: the reason, else the blocking step and its state; null if fine. */
    public String summary() {
        if (reason != null) {
            return reason;
        }
        String step = blockingStep();
        return step == null ? null : step + ": " + steps.get(step);
    }
}
