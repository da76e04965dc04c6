package org.gpuoperator.controller.reconcile;

import java.util.List;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.validation.ClusterPolicyValidator;
import org.gpuoperator.api.validation.ValidationProblem;

/** Defaults and semantic validation of a ClusterPolicy spec, both owned by api-crds. */
public final class PolicyCheck {

    private PolicyCheck() {}

    /**
     * @param effective the spec with every default filled in (the input is not changed); null when
     *     there are errors
     * @param errors every validation error as {@code path: message}; non-empty means nothing may be
     *     applied
     * @param warnings ignored fields (unknown, deprecated, not implemented), reported in the status
     */
    public record Checked(
            ClusterPolicySpec effective, List<String> errors, List<PolicyWarning> warnings) {}

    public static Checked check(ClusterPolicySpec spec) {
        ClusterPolicySpec given = spec == null ? new ClusterPolicySpec() : spec;
        List<ValidationProblem> problems = ClusterPolicyValidator.validate(given);
        List<String> errors =
                problems.stream()
                        .filter(ValidationProblem::isError)
                        .map(p -> p.path() + ": " + p.message())
                        .toList();
        List<PolicyWarning> warnings =
                problems.stream()
                        .filter(p -> !p.isError())
                        .map(ValidationProblem::toPolicyWarning)
                        .toList();
        // with errors nothing is applied, and a value that could not be read must not meet a
        // default in the copy
        return new Checked(
                errors.isEmpty() ? ClusterPolicyDefaults.effective(given) : null, errors, warnings);
    }
}
