package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.nvidiadriver.DriverHandover;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.OperatorMonitor;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * Every object a policy asks for, grouped by operand, plus the kinds and names of what disabled
 * operands and a disabled CDI leave behind (deleted without being built). Pure; computed once per
 * reconcile by {@link #of}; also what {@code operator-controller render} prints.
 */
public record DesiredState(
        List<HasMetadata> common,
        Map<Operand, List<HasMetadata>> enabled,
        Map<Operand, List<ObjectRef>> disabled,
        List<ObjectRef> commonDisabled,
        List<String> errors) {

    public static DesiredState of(OperandModels models, PolicySettings policy, String namespace) {
        List<String> errors = new ArrayList<>();
        Map<Operand, List<HasMetadata>> enabled = new EnumMap<>(Operand.class);
        Map<Operand, List<ObjectRef>> disabled = new EnumMap<>(Operand.class);
        for (Operand operand : Operand.values()) {
            if (policy.enabled(operand)) {
                try {
                    List<HasMetadata> objects = models.render(policy, operand, namespace);
                    if (operand == Operand.DRIVER) {
                        // off the nodes an NVIDIADriver's pool still holds (DriverHandover)
                        objects.stream()
                                .filter(DaemonSet.class::isInstance)
                                .map(DaemonSet.class::cast)
                                .filter(
                                        ds ->
                                                operand.daemonSetName()
                                                        .equals(ds.getMetadata().getName()))
                                .forEach(DriverHandover::excludePoolNodes);
                    }
                    enabled.put(operand, objects);
                } catch (IllegalArgumentException e) {
                    errors.add(e.getMessage());
                }
            } else {
                disabled.put(operand, OperandModels.objectRefs(operand, namespace));
            }
        }
        List<ObjectRef> commonDisabled = new ArrayList<>(OperandModels.unwantedRbac(policy));
        commonDisabled.addAll(OperandModels.unwantedRuntimeClasses(policy));
        commonDisabled.addAll(OperandModels.unwantedMonitors(policy, namespace));
        commonDisabled.addAll(OperatorMonitor.unwanted(policy, namespace));
        List<HasMetadata> common = new ArrayList<>(models.runtimeClasses(policy));
        common.addAll(OperatorMonitor.render(policy, namespace));
        return new DesiredState(
                List.copyOf(common),
                enabled,
                disabled,
                List.copyOf(commonDisabled),
                List.copyOf(errors));
    }

    /**
     * All objects to apply, in order: RuntimeClasses and the operator's ServiceMonitor and
     * PrometheusRule, then each operand's objects in pipeline order.
     */
    public List<HasMetadata> toApply() {
        List<HasMetadata> all = new ArrayList<>(common);
        enabled.values().forEach(all::addAll);
        return all;
    }

    /**
     * What must go, in delete order: each disabled operand's DaemonSet first, its identity last;
     * then the RuntimeClasses no longer wanted (CDI off) and unwanted ServiceMonitors and
     * PrometheusRule.
     */
    public List<ObjectRef> toDelete() {
        List<ObjectRef> all = new ArrayList<>();
        disabled.values().forEach(refs -> all.addAll(refs.reversed()));
        all.addAll(commonDisabled);
        return all;
    }

    /**
     * NVIDIADriver mode: the driver's objects without the ClusterPolicy's driver DaemonSet, which
     * is deleted, and with the pools' DaemonSets instead.
     */
    public DesiredState withDriverPools(Collection<DaemonSet> pools, String namespace) {
        if (!enabled.containsKey(Operand.DRIVER)) {
            return this;
        }
        Map<Operand, List<HasMetadata>> objects = new EnumMap<>(enabled);
        List<HasMetadata> driver = new ArrayList<>();
        for (HasMetadata o : enabled.get(Operand.DRIVER)) {
            if (!(o instanceof DaemonSet)) {
                driver.add(o);
            }
        }
        driver.addAll(pools);
        objects.put(Operand.DRIVER, List.copyOf(driver));
        List<ObjectRef> gone = new ArrayList<>();
        gone.add(new ObjectRef(DaemonSet.class, namespace, Operand.DRIVER.daemonSetName()));
        gone.addAll(commonDisabled);
        return new DesiredState(common, objects, disabled, List.copyOf(gone), errors);
    }

    /** The pod template hash of each enabled operand's own DaemonSet (named as the operand's). */
    public Map<Operand, String> templateHashes() {
        Map<Operand, String> hashes = new EnumMap<>(Operand.class);
        enabled.forEach(
                (operand, objects) ->
                        objects.stream()
                                .filter(DaemonSet.class::isInstance)
                                .map(DaemonSet.class::cast)
                                .filter(
                                        ds ->
                                                operand.daemonSetName()
                                                        .equals(ds.getMetadata().getName()))
                                .findFirst()
                                .ifPresent(
                                        ds ->
                                                hashes.put(
                                                        operand,
                                                        ds.getSpec()
                                                                .getTemplate()
                                                                .getMetadata()
                                                                .getAnnotations()
                                                                .get(
                                                                        PodContract
                                                                                .TEMPLATE_HASH_ANNOTATION))));
        return hashes;
    }
}
