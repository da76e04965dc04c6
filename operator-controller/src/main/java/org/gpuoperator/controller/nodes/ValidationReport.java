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
 */
public record ValidationReport(Map<String, String> steps, String reason) {

    public static final String ANNOTATION = "nvidia.com/gpu-operator.validation";
    public static final String REASON_ANNOTATION = "nvidia.com/gpu-operator.validation-reason";

    public ValidationReport {
        steps = Map.copyOf(steps);
        reason = reason == null || reason.isBlank() ? null : reason.trim();
    }

    public static ValidationReport of(Map<String, String> annotations) {
        if (annotations == null) {
            return new ValidationReport(Map.of(), null);
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
        return new ValidationReport(steps, annotations.get(REASON_ANNOTATION));
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
