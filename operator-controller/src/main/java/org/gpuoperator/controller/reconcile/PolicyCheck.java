package org.gpuoperator.controller.reconcile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.defaults.UpstreamImages;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.validation.ClusterPolicyValidator;
import org.gpuoperator.api.validation.ValidationProblem;
import org.gpuoperator.controller.policy.FieldsRead;
import org.gpuoperator.controller.upgrade.UpgradePolicy;

/** Defaults and semantic validation of a ClusterPolicy spec, both owned by api-crds. */
public final class PolicyCheck {

    private PolicyCheck() {}

    /**
     * @param effective the spec with every default filled in (the input is not changed); null when
     *     there are errors
     * @param errors every validation error as {@code path: message}; non-empty means nothing may be
     *     applied
     * @param warnings every field set but not acted on ({@link FieldsRead}), with the validator's
     *     reason when it has one, then the validator's other warnings, then each of NVIDIA's images
     *     replaced by this operator's ({@link UpstreamImages}); reported in the status
     */
    public record Checked(
            ClusterPolicySpec effective, List<String> errors, List<PolicyWarning> warnings) {}

    public static Checked check(ClusterPolicySpec spec) {
        ClusterPolicySpec given = spec == null ? new ClusterPolicySpec() : spec;
        List<ValidationProblem> problems = ClusterPolicyValidator.validate(given);
        List<String> errors =
                new ArrayList<>(
                        problems.stream()
                                .filter(ValidationProblem::isError)
                                .map(p -> p.path() + ": " + p.message())
                                .toList());
        if (errors.isEmpty()) {
            // the selectors and maxUnavailable are read once here, so a bad one stops the apply
            try {
                ClusterPolicySpec effective = ClusterPolicyDefaults.effective(given);
                UpgradePolicy.from(
                        effective.getDriver() == null
                                ? null
                                : effective.getDriver().getUpgradePolicy());
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        List<PolicyWarning> warnings =
                warnings(given, ClusterPolicyDefaults.effective(given), problems);
        // with errors nothing is applied, and a value that could not be read must not meet a
        // default in the copy
        return new Checked(
                errors.isEmpty() ? ClusterPolicyDefaults.effective(given) : null,
                List.copyOf(errors),
                warnings);
    }

    /**
     * One warning per field set but not in {@link FieldsRead#TABLE}; a validator warning on the
     * same path (unknown, deprecated, not implemented) becomes its reason instead of a second
     * entry.
     */
    static List<PolicyWarning> warnings(
            ClusterPolicySpec given,
            ClusterPolicySpec effective,
            List<ValidationProblem> problems) {
        Map<String, List<String>> reasons = new LinkedHashMap<>();
        for (ValidationProblem p : problems) {
            if (!p.isError()) {
                reasons.computeIfAbsent(p.path(), k -> new ArrayList<>()).add(p.message());
            }
        }
        List<PolicyWarning> warnings = new ArrayList<>();
        for (FieldsRead.Unread unread : FieldsRead.unread(given, effective)) {
            List<String> reason = reasons.remove(unread.path());
            String why =
                    reason != null
                            ? String.join("; ", reason)
                            : unread.known() ? "" : "unknown field";
            warnings.add(
                    new PolicyWarning(
                            unread.path(),
                            FieldsRead.NOT_ACTED_ON + (why.isEmpty() ? "" : " (" + why + ")")));
        }
        reasons.forEach(
                (path, messages) ->
                        messages.forEach(m -> warnings.add(new PolicyWarning(path, m))));
        for (UpstreamImages.Replacement r : UpstreamImages.of(given)) {
            warnings.add(new PolicyWarning(r.path(), r.message()));
        }
        return List.copyOf(warnings);
    }
}
