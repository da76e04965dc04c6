package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.controller.apply.ResourceApplier;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandRenderer;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.status.ClusterRollup;
import org.gpuoperator.controller.status.StatusCalculator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ClusterPolicy reconciler: level-triggered, driven by informers on Nodes, operand Pods and DaemonSets (no
 * polling). Each pass renders the desired objects, applies only those whose hash changed, moves the nodes an event
 * touched through their gates with at most one label patch per node ({@link NodeRollout}), and writes the status
 * only when it changed.
 */
@ControllerConfiguration(name = ClusterPolicyReconciler.NAME, finalizerName = ClusterPolicyReconciler.FINALIZER)
public final class ClusterPolicyReconciler implements Reconciler<ClusterPolicy>, Cleaner<ClusterPolicy> {

    public static final String NAME = "clusterpolicy";
    /** Removes our node labels on deletion; upstream leaves them behind (NVIDIA/gpu-operator#1391). */
    public static final String FINALIZER = "nvidia.com/gpu-operator-node-labels";
    static final String OPERAND_SELECTOR = OperandRenderer.MANAGED_BY_LABEL + "=" + OperandRenderer.MANAGED_BY;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterPolicyReconciler.class);

    private final String namespace;
    private final OperandRenderer renderer;
    private final OperatorMetrics metrics;
    private final ResourceApplier applier;
    private final NodeRollout rollout;

    private volatile IndexerResourceCache<ClusterPolicy> policies;
    private volatile InformerEventSource<Node, ClusterPolicy> nodes;
    private volatile InformerEventSource<Pod, ClusterPolicy> pods;
    private volatile InformerEventSource<DaemonSet, ClusterPolicy> daemonSets;

    public ClusterPolicyReconciler(KubernetesClient client, String namespace, Map<String, String> operatorEnv,
            OperatorMetrics metrics) {
        this.namespace = namespace;
        this.renderer = new OperandRenderer(operatorEnv);
        this.metrics = metrics;
        this.applier = new ResourceApplier(client, metrics::write, new DaemonSetCache());
        this.rollout = new NodeRollout(NodeRollout.LabelPatcher.of(client), new InformerCaches(), metrics,
                System::nanoTime);
    }

    private static final String PODS_BY_NODE = "byNode";

    /** The rollout reads nodes and operand pods from the informers. */
    private final class InformerCaches implements NodeRollout.Caches {
        @Override
        public java.util.stream.Stream<Node> nodes() {
            return nodes.list();
        }

        @Override
        public Optional<Node> node(String name) {
            return nodes.get(new ResourceID(name));
        }

        @Override
        public List<Pod> operandPodsOn(String node) {
            return pods.byIndex(PODS_BY_NODE, node);
        }
    }

    /** DaemonSets are read from their informer; our writes go back into it (JOSDK's recent-update cache). */
    private final class DaemonSetCache implements ResourceApplier.LiveCache {
        @Override
        public Optional<HasMetadata> get(HasMetadata desired) {
            if (!(desired instanceof DaemonSet) || daemonSets == null) {
                return null;
            }
            return daemonSets.get(ResourceID.fromResource(desired)).map(HasMetadata.class::cast);
        }

        @Override
        public void written(HasMetadata result, HasMetadata previous) {
            if (result instanceof DaemonSet ds && daemonSets != null) {
                ResourceID id = ResourceID.fromResource(ds);
                if (previous == null) {
                    daemonSets.handleRecentResourceCreate(id, ds);
                } else {
                    daemonSets.handleRecentResourceUpdate(id, ds, (DaemonSet) previous);
                }
            }
        }
    }

    @Override
    public List<EventSource<?, ClusterPolicy>> prepareEventSources(EventSourceContext<ClusterPolicy> context) {
        policies = context.getPrimaryCache();
        nodes = new InformerEventSource<>(InformerEventSourceConfiguration.from(Node.class, ClusterPolicy.class)
                .withName("nodes")
                .withSecondaryToPrimaryMapper(n -> {
                    rollout.touched(n.getMetadata().getName());
                    return allPolicies();
                })
                // kubelet heartbeats change status only; the gate reads labels
                .withOnUpdateFilter((now, before) -> !Objects.equals(now.getMetadata().getLabels(),
                        before.getMetadata().getLabels()))
                .build(), context);
        pods = new InformerEventSource<>(InformerEventSourceConfiguration.from(Pod.class, ClusterPolicy.class)
                .withName("operand-pods")
                .withNamespaces(Set.of(namespace))
                .withLabelSelector(OPERAND_SELECTOR)
                .withSecondaryToPrimaryMapper(p -> {
                    OperandPods.nodeOf(p).forEach(rollout::touched);
                    return allPolicies();
                })
                .withOnUpdateFilter((now, before) -> OperandPods.isReady(now) != OperandPods.isReady(before)
                        || !Objects.equals(now.getSpec().getNodeName(), before.getSpec().getNodeName())
                        || !Objects.equals(now.getMetadata().getLabels(), before.getMetadata().getLabels())
                        || !Objects.equals(now.getMetadata().getAnnotations(), before.getMetadata().getAnnotations())
                        || !Objects.equals(now.getMetadata().getDeletionTimestamp(),
                                before.getMetadata().getDeletionTimestamp()))
                .build(), context);
        pods.addIndexers(Map.of(PODS_BY_NODE, OperandPods::nodeOf));
        daemonSets = new InformerEventSource<>(
                InformerEventSourceConfiguration.from(DaemonSet.class, ClusterPolicy.class)
                        .withName("operand-daemonsets")
                        .withNamespaces(Set.of(namespace))
                        .withLabelSelector(OPERAND_SELECTOR)
                        .withSecondaryToPrimaryMapper(d -> allPolicies())
                        .build(), context);
        return List.of(nodes, pods, daemonSets);
    }

    private Set<ResourceID> allPolicies() {
        return policies.list().map(ResourceID::fromResource).collect(Collectors.toSet());
    }

    @Override
    public UpdateControl<ClusterPolicy> reconcile(ClusterPolicy policy, Context<ClusterPolicy> context) {
        long generation = Optional.ofNullable(policy.getMetadata().getGeneration()).orElse(0L);
        ClusterPolicy active = activePolicy().orElse(policy);
        if (!active.getMetadata().getName().equals(policy.getMetadata().getName())) {
            metrics.policyUnavailable();
            return statusUpdate(policy, StatusCalculator.ignored(policy.getStatus(), generation, namespace,
                    active.getMetadata().getName(), now()));
        }

        PolicyCheck.Checked checked = PolicyCheck.check(policy.getSpec());
        List<String> errors = new ArrayList<>(checked.errors());
        PolicySettings settings = null;
        DesiredState desired = null;
        if (errors.isEmpty()) {
            settings = ClusterPolicySettings.from(checked.effective());
            desired = DesiredState.of(renderer, settings, namespace);
            errors.addAll(desired.errors());
        }
        if (!errors.isEmpty()) {
            // an invalid spec changes nothing that is deployed; it only says why
            metrics.failed();
            LOG.warn("ClusterPolicy {} is invalid: {}", policy.getMetadata().getName(), errors);
            ClusterPolicyStatus invalid = StatusCalculator.invalid(policy.getStatus(), generation, namespace, errors,
                    now());
            invalid.setWarnings(checked.warnings().isEmpty() ? null : checked.warnings());
            return statusUpdate(policy, invalid);
        }

        for (HasMetadata object : desired.toApply()) {
            applier.apply(ResourceApplier.ownedBy(object, policy));
        }
        for (List<HasMetadata> objects : desired.disabled().values()) {
            for (HasMetadata object : objects.reversed()) {
                applier.deleteIfPresent(object);
            }
        }

        Set<Operand> enabled = EnumSet.noneOf(Operand.class);
        for (Operand o : Operand.values()) {
            if (settings.enabled(o)) {
                enabled.add(o);
            }
        }
        ClusterRollup rollup = rollout.pass(new NodeRollout.Inputs(policy.getMetadata().getUid(), enabled,
                settings.simulation().nodeLabel(), desired.templateHashes()));

        ClusterPolicyStatus status = StatusCalculator.compute(new StatusCalculator.Observation(generation, namespace,
                settings, rollup), currentConditions(policy), now());
        status.setWarnings(checked.warnings().isEmpty() ? null : checked.warnings());
        int gpuNodes = status.getNodes().getGpuNodes();
        metrics.reconciled(status.getState() == org.gpuoperator.api.v1.State.READY ? OperatorMetrics.SUCCESS
                : OperatorMetrics.NOT_READY, gpuNodes, rollup.clusterHasNfd());
        return statusUpdate(policy, status);
    }

    @Override
    public ErrorStatusUpdateControl<ClusterPolicy> updateErrorStatus(ClusterPolicy policy,
            Context<ClusterPolicy> context, Exception e) {
        metrics.failed();
        LOG.warn("reconcile of ClusterPolicy {} failed: {}", policy.getMetadata().getName(), e.toString());
        ClusterPolicyStatus status = StatusCalculator.failed(policy.getStatus(),
                e.getMessage() == null ? e.toString() : e.getMessage(), now());
        if (sameStatus(policy.getStatus(), status)) {
            return ErrorStatusUpdateControl.defaultErrorProcessing();
        }
        policy.setStatus(status);
        return ErrorStatusUpdateControl.patchStatus(policy);
    }

    /** On deletion of the active policy: take our labels off every node, keep everyone else's. */
    @Override
    public DeleteControl cleanup(ClusterPolicy policy, Context<ClusterPolicy> context) {
        boolean otherActive = policies.list().anyMatch(p -> !p.getMetadata().getName()
                .equals(policy.getMetadata().getName()) && p.getMetadata().getDeletionTimestamp() == null);
        if (otherActive) {
            return DeleteControl.defaultDelete();
        }
        rollout.removeOurLabels();
        return DeleteControl.defaultDelete();
    }

    private Optional<ClusterPolicy> activePolicy() {
        return activeOf(policies.list().toList());
    }

    /** The singleton rule: the oldest creationTimestamp wins, the name breaks ties (upstream's rule). */
    static Optional<ClusterPolicy> activeOf(List<ClusterPolicy> all) {
        return all.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .min(Comparator.comparing((ClusterPolicy p) -> Instant.parse(
                                Optional.ofNullable(p.getMetadata().getCreationTimestamp()).orElse(
                                        Instant.EPOCH.toString())))
                        .thenComparing(p -> p.getMetadata().getName()));
    }

    private UpdateControl<ClusterPolicy> statusUpdate(ClusterPolicy policy, ClusterPolicyStatus status) {
        if (sameStatus(policy.getStatus(), status)) {
            return UpdateControl.noUpdate();
        }
        policy.setStatus(status);
        metrics.write("patch", "ClusterPolicy/status");
        return UpdateControl.patchStatus(policy);
    }

    static boolean sameStatus(ClusterPolicyStatus a, ClusterPolicyStatus b) {
        return Serialization.jsonMapper().valueToTree(a).equals(Serialization.jsonMapper().valueToTree(b));
    }

    private static List<io.fabric8.kubernetes.api.model.Condition> currentConditions(ClusterPolicy policy) {
        return policy.getStatus() == null ? null : policy.getStatus().getConditions();
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
