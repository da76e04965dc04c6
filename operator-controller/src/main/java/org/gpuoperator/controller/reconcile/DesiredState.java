package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandRenderer;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * Every object a policy asks for, grouped by operand, plus what must go for disabled operands. Computed once per
 * reconcile by {@link #of}; also what {@code operator-controller render} prints.
 */
public record DesiredState(
        List<HasMetadata> common,
        Map<Operand, List<HasMetadata>> enabled,
        Map<Operand, List<HasMetadata>> disabled,
        List<String> errors) {

    public static DesiredState of(OperandRenderer renderer, PolicySettings policy, String namespace) {
        List<String> errors = new ArrayList<>();
        Map<Operand, List<HasMetadata>> enabled = new EnumMap<>(Operand.class);
        Map<Operand, List<HasMetadata>> disabled = new EnumMap<>(Operand.class);
        for (Operand operand : Operand.values()) {
            if (policy.enabled(operand)) {
                try {
                    enabled.put(operand, renderer.render(policy, operand, namespace));
                } catch (IllegalArgumentException e) {
                    errors.add(e.getMessage());
                }
            } else {
                // names do not depend on the image: render with a placeholder to learn what to delete
                PolicySettings placeholder = policy.withOperand(operand, OperandSettings.enabled("x", "x", "x"));
                disabled.put(operand, renderer.render(placeholder, operand, namespace));
            }
        }
        return new DesiredState(List.of(renderer.runtimeClass(policy)), enabled, disabled, List.copyOf(errors));
    }

    /** All objects to apply, in order: RuntimeClass, then each operand's objects in pipeline order. */
    public List<HasMetadata> toApply() {
        List<HasMetadata> all = new ArrayList<>(common);
        enabled.values().forEach(all::addAll);
        return all;
    }

    public Map<Operand, String> templateHashes() {
        Map<Operand, String> hashes = new EnumMap<>(Operand.class);
        enabled.forEach((operand, objects) -> objects.stream().filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast).findFirst()
                .ifPresent(ds -> hashes.put(operand, ds.getSpec().getTemplate().getMetadata().getAnnotations()
                        .get(OperandRenderer.TEMPLATE_HASH_ANNOTATION))));
        return hashes;
    }
}
