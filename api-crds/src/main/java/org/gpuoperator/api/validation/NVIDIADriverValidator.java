package org.gpuoperator.api.validation;

import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;

/**
 * Checks one NVIDIADriver: the schema constraints, unknown fields (warnings) and the rule that a
 * default driver has no nodeSelector. Rules across several NVIDIADrivers (overlapping selectors,
 * more than one default) need the other resources and belong to the controller.
 */
public final class NVIDIADriverValidator {
    private NVIDIADriverValidator() {}

    public static List<ValidationProblem> validate(NVIDIADriver driver) {
        NVIDIADriverSpec spec = driver.getSpec();
        if (spec == null) {
            return List.of(ValidationProblem.error("spec", "is required"));
        }
        List<ValidationProblem> problems = new ArrayList<>(ConstraintChecks.check(spec, "spec"));
        if (Boolean.TRUE.equals(spec.getDefaultDriver())
                && spec.getNodeSelector() != null
                && !spec.getNodeSelector().isEmpty()) {
            problems.add(
                    ValidationProblem.error(
                            "spec.nodeSelector",
                            "a default NVIDIADriver must not have a nodeSelector"));
        }
        return List.copyOf(problems);
    }
}
