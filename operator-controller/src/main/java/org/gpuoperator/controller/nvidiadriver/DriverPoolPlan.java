package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.gpuoperator.api.v1alpha1.DriverType;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.validation.NVIDIADriverValidator;
import org.gpuoperator.api.validation.ValidationProblem;
import org.gpuoperator.controller.apply.ResourceApplier;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.Placement;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.upgrade.UpgradePolicy;

/**
 * The driver DaemonSets in NVIDIADriver mode (pure): the nodes' assignment, their pools, and one
 * DaemonSet per pool rendered as the ClusterPolicy's driver DaemonSet with the NVIDIADriver's
 * settings on top ({@link NvidiaDriverSettings}), named {@code nvidia-gpu-driver-<os>-<hash>},
 * selecting the driver deploy label, the pool label and the owner label, and owned by its
 * NVIDIADriver.
 *
 * @param drivers the NVIDIADrivers by name
 * @param errors NVIDIADriver → why it gets no DaemonSet (invalid spec, no image); its nodes stay
 *     assigned to it, so they do not fall to the default driver
 * @param daemonSets one per pool of a driver without errors, by pool id
 * @param upgradePolicies every NVIDIADriver → the policy its nodes are upgraded under: its
 *     spec.upgradePolicy, each field it leaves unset at the default of upstream's NVIDIADriver
 *     (autoUpgrade true; the others as the ClusterPolicy's), so without one upstream's defaults,
 *     never the ClusterPolicy's; an invalid driver's too (its pools get no new template hash, so no
 *     node of it starts an upgrade), upstream's defaults where its upgradePolicy cannot be read
 */
public record DriverPoolPlan(
        Map<String, NVIDIADriver> drivers,
        DriverRouting routing,
        DriverAssignment.Result assignment,
        List<DriverPools.Pool> pools,
        Map<String, String> errors,
        Map<String, DaemonSet> daemonSets,
        Map<String, UpgradePolicy> upgradePolicies) {

    /** As below, with no existing pool DaemonSets. */
    public static DriverPoolPlan of(
            OperandModels models,
            PolicySettings base,
            String namespace,
            List<NVIDIADriver> nvidiaDrivers,
            List<Node> gpuNodes) {
        return of(models, base, namespace, nvidiaDrivers, gpuNodes, Map.of());
    }

    /** As below, every pool's DaemonSet selecting the owner label. */
    public static DriverPoolPlan of(
            OperandModels models,
            PolicySettings base,
            String namespace,
            List<NVIDIADriver> nvidiaDrivers,
            List<Node> gpuNodes,
            Map<String, String> driverOfPool) {
        return of(models, base, namespace, nvidiaDrivers, gpuNodes, driverOfPool, Set.of());
    }

    /**
     * @param base the ClusterPolicy's settings
     * @param gpuNodes the GPU nodes
     * @param driverOfPool pool id → the NVIDIADriver of its existing DaemonSet: with the nodes'
     *     pool labels, the previous owners that contested nodes keep
     * @param withoutOwnerSelector the pools whose existing DaemonSet does not select the owner
     *     label yet (made by an earlier version): it does once each of its nodes carries the label,
     *     so that the DaemonSet controller never sees a node of the pool unselected
     */
    public static DriverPoolPlan of(
            OperandModels models,
            PolicySettings base,
            String namespace,
            List<NVIDIADriver> nvidiaDrivers,
            List<Node> gpuNodes,
            Map<String, String> driverOfPool,
            Set<String> withoutOwnerSelector) {
        Map<String, NVIDIADriver> drivers = new TreeMap<>();
        nvidiaDrivers.forEach(d -> drivers.put(d.getMetadata().getName(), d));
        List<DriverSelector> selectors = drivers.values().stream().map(DriverSelector::of).toList();
        Map<String, Map<String, String>> labels = new TreeMap<>();
        Map<String, NodeOs> os = new TreeMap<>();
        Map<String, String> previous = new TreeMap<>();
        for (Node n : gpuNodes) {
            String name = n.getMetadata().getName();
            Map<String, String> l =
                    n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
            labels.put(name, l);
            os.put(name, NodeOs.of(n));
            String owner = DriverRouting.previousOwner(l, os.get(name), selectors, driverOfPool);
            if (owner != null) {
                previous.put(name, owner);
            }
        }
        DriverAssignment.Result assignment = DriverAssignment.assign(selectors, labels, previous);
        List<DriverPools.Pool> pools = DriverPools.pools(assignment.driverOfNode(), os);

        Map<String, String> errors = new TreeMap<>();
        Map<String, PolicySettings> settings = new TreeMap<>();
        Map<String, UpgradePolicy> upgradePolicies = new TreeMap<>();
        drivers.forEach(
                (name, d) -> {
                    String upgradeError = null;
                    try {
                        upgradePolicies.put(
                                name,
                                UpgradePolicy.ofNvidiaDriver(
                                        d.getSpec() == null
                                                ? null
                                                : d.getSpec().getUpgradePolicy()));
                    } catch (IllegalArgumentException e) {
                        upgradeError =
                                e.getMessage().replace(UpgradePolicy.FIELD, "spec.upgradePolicy");
                        upgradePolicies.put(name, UpgradePolicy.ofNvidiaDriver(null));
                    }
                    List<ValidationProblem> problems = NVIDIADriverValidator.validate(d);
                    if (ValidationProblem.anyError(problems)) {
                        errors.put(
                                name,
                                problems.stream()
                                        .filter(ValidationProblem::isError)
                                        .map(p -> p.path() + ": " + p.message())
                                        .collect(Collectors.joining("; ")));
                        return;
                    }
                    Map<String, String> selector = d.getSpec().getNodeSelector();
                    if (selector != null && selector.containsKey(DriverPools.OWNER_LABEL)) {
                        errors.put(
                                name,
                                "spec.nodeSelector: "
                                        + DriverPools.OWNER_LABEL
                                        + " is reserved: the operator sets it on each GPU node to"
                                        + " the NVIDIADriver the node is assigned to (this driver"
                                        + " keeps the nodes it has and takes no other)");
                        return;
                    }
                    if (!DriverPools.isLabelValue(name)) {
                        errors.put(
                                name,
                                "metadata.name: longer than 63 characters, so it cannot be the"
                                        + " value of the node label "
                                        + DriverPools.OWNER_LABEL);
                        return;
                    }
                    DriverType type = d.getSpec().getDriverType();
                    if (type != null && type != DriverType.GPU) {
                        // deploying the GPU driver for a vGPU CR would be the wrong driver
                        errors.put(
                                name,
                                "spec.driverType: "
                                        + type.jsonValue()
                                        + " is not supported by this operator yet (only gpu);"
                                        + " refused rather than deployed as the GPU driver");
                        return;
                    }
                    if (upgradeError != null) {
                        errors.put(name, upgradeError);
                        return;
                    }
                    settings.put(name, NvidiaDriverSettings.apply(base, d.getSpec()));
                });
        Map<String, DaemonSet> daemonSets = new LinkedHashMap<>();
        Map<String, String> hashes = new TreeMap<>();
        for (DriverPools.Pool pool : pools) {
            PolicySettings s = settings.get(pool.driver());
            if (s == null) {
                continue;
            }
            try {
                DaemonSet ds =
                        models.renderPlaced(
                                s,
                                Operand.DRIVER,
                                namespace,
                                "nvidiadrivers/" + pool.driver() + ": spec",
                                placement(pool));
                if (!withoutOwnerSelector.contains(pool.id()) || ownerLabelled(pool, labels)) {
                    selectOwner(ds, pool.driver());
                }
                // deleting the NVIDIADriver garbage-collects its DaemonSets, as upstream's
                ResourceApplier.ownedBy(ds, drivers.get(pool.driver()));
                daemonSets.put(pool.id(), ds);
                hashes.put(
                        pool.id(),
                        ds.getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(PodContract.TEMPLATE_HASH_ANNOTATION));
            } catch (IllegalArgumentException e) {
                errors.putIfAbsent(pool.driver(), e.getMessage());
            }
        }
        // a driver that failed on one pool gets none: half a rollout is harder to explain
        List<String> failed = new ArrayList<>(errors.keySet());
        for (DriverPools.Pool pool : pools) {
            if (failed.contains(pool.driver())) {
                daemonSets.remove(pool.id());
                hashes.remove(pool.id());
            }
        }
        return new DriverPoolPlan(
                drivers,
                new DriverRouting(selectors, hashes, driverOfPool),
                assignment,
                pools,
                errors,
                daemonSets,
                upgradePolicies);
    }

    /** Labels and nodeSelector of a pool's DaemonSet. */
    public static Placement placement(DriverPools.Pool pool) {
        return new Placement(
                pool.daemonSetName(),
                Map.of(DriverPools.POOL_LABEL, pool.id()),
                Map.of(DriverPools.POOL_LABEL, pool.id()),
                Map.of(DriverPools.DRIVER_ANNOTATION, pool.driver()));
    }

    /**
     * Adds the owner label to the DaemonSet's nodeSelector, after its pod template hash was taken:
     * the label routes, it changes nothing in the pod, so adding it to an existing DaemonSet makes
     * no driver pod outdated.
     */
    static void selectOwner(DaemonSet ds, String driver) {
        var spec = ds.getSpec().getTemplate().getSpec();
        Map<String, String> selector = new LinkedHashMap<>();
        if (spec.getNodeSelector() != null) {
            selector.putAll(spec.getNodeSelector());
        }
        selector.put(DriverPools.OWNER_LABEL, driver);
        spec.setNodeSelector(selector);
    }

    /** Whether every node of the pool carries its driver as the owner label. */
    private static boolean ownerLabelled(
            DriverPools.Pool pool, Map<String, Map<String, String>> labels) {
        return pool.nodes().stream()
                .allMatch(
                        n ->
                                pool.driver()
                                        .equals(
                                                labels.getOrDefault(n, Map.of())
                                                        .get(DriverPools.OWNER_LABEL)));
    }

    /** The pools of one NVIDIADriver. */
    public List<DriverPools.Pool> poolsOf(String driver) {
        return pools.stream().filter(p -> p.driver().equals(driver)).toList();
    }
}
