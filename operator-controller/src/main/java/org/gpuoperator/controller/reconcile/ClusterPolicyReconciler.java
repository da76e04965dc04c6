package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.MaxReconciliationInterval;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.PrimaryToSecondaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.gpuoperator.api.defaults.UpstreamImages;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.apply.ResourceApplier;
import org.gpuoperator.controller.events.AsyncEventRecorder;
import org.gpuoperator.controller.events.EventCorrelator;
import org.gpuoperator.controller.events.EventReasons;
import org.gpuoperator.controller.events.EventRecorder;
import org.gpuoperator.controller.events.EventType;
import org.gpuoperator.controller.events.Fabric8EventSink;
import org.gpuoperator.controller.events.InvolvedObject;
import org.gpuoperator.controller.matrix.NodeVersions;
import org.gpuoperator.controller.matrix.VersionMatrix;
import org.gpuoperator.controller.matrix.VersionMatrixCheck;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.nvidiadriver.DriverHandover;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.gpuoperator.controller.nvidiadriver.DriverRouting;
import org.gpuoperator.controller.nvidiadriver.NvidiaDriverSettings;
import org.gpuoperator.controller.nvidiadriver.NvidiaDriverStatuses;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.operand.PrometheusOperatorObject;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.status.ClusterRollup;
import org.gpuoperator.controller.status.StatusCalculator;
import org.gpuoperator.controller.status.UpgradeStatus;
import org.gpuoperator.controller.upgrade.UpgradeNodes;
import org.gpuoperator.controller.upgrade.UpgradePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ClusterPolicy reconciler: level-triggered, driven by informers on Nodes, operand Pods and
 * DaemonSets, and at least every {@value #MAX_INTERVAL_MINUTES} minutes. A reconcile is a chain of
 * named steps: {@link #observe observe} → {@link #validate validate} → {@link #desiredState desired
 * state} → {@link #apply apply} → {@link #prune prune} → {@link #rollOutNodes roll out nodes} →
 * {@link #upgradeDrivers upgrade drivers} → {@link #status status}. Only the apply, prune, roll-out
 * and upgrade steps write, and only what differs.
 */
@ControllerConfiguration(
        name = ClusterPolicyReconciler.NAME,
        finalizerName = ClusterPolicyReconciler.FINALIZER,
        maxReconciliationInterval =
                @MaxReconciliationInterval(
                        interval = ClusterPolicyReconciler.MAX_INTERVAL_MINUTES,
                        timeUnit = TimeUnit.MINUTES))
public final class ClusterPolicyReconciler
        implements Reconciler<ClusterPolicy>, Cleaner<ClusterPolicy> {

    public static final String NAME = "clusterpolicy";

    /**
     * Removes our node labels on deletion; upstream leaves them behind (NVIDIA/gpu-operator#1391).
     */
    public static final String FINALIZER = "nvidia.com/gpu-operator-node-labels";

    /**
     * A reconcile runs at least this often without events, so the rollout's safety pass is never
     * far off.
     */
    static final long MAX_INTERVAL_MINUTES = 5;

    static final String OPERAND_SELECTOR =
            PodContract.MANAGED_BY_LABEL + "=" + PodContract.MANAGED_BY;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterPolicyReconciler.class);

    private final String namespace;
    private final OperandModels models;
    private final ResourceApplier applier;
    private final NodeRollout rollout;
    private final InformerCaches caches;
    private final OperatorMetrics metrics;
    private final Clock clock;

    /**
     * By Prometheus Operator kind: when a write last found it not served (no Prometheus Operator
     * CRDs). The next try waits {@value #MAX_INTERVAL_MINUTES} minutes, so node events cost no
     * failing create each.
     */
    private final Map<String, Instant> prometheusKindMissingAt =
            new java.util.concurrent.ConcurrentHashMap<>();

    private final NvidiaDrivers nvidiaDrivers;
    private final LeftoverRbac leftoverRbac;
    private final DriverUpgrade driverUpgrade;
    private final NvidiaDriverSource nvidiaDriverSource;
    private final EventRecorder events;
    private volatile VersionMatrix matrix;

    private volatile IndexerResourceCache<ClusterPolicy> policies;

    /**
     * @param nvidiaDriverSource the NVIDIADrivers in NVIDIADriver mode; null: they cannot be listed
     * @param events the Events about the policy (invalid spec, DaemonSets); the node steps record
     *     theirs through {@code rollout} and {@code driverUpgrade}
     */
    ClusterPolicyReconciler(
            String namespace,
            OperandModels models,
            ResourceApplier applier,
            NodeRollout rollout,
            InformerCaches caches,
            OperatorMetrics metrics,
            Clock clock,
            NvidiaDrivers nvidiaDrivers,
            LeftoverRbac leftoverRbac,
            DriverUpgrade driverUpgrade,
            NvidiaDriverSource nvidiaDriverSource,
            EventRecorder events) {
        this.events = events;
        this.nvidiaDriverSource = nvidiaDriverSource;
        this.namespace = namespace;
        this.models = models;
        this.applier = applier;
        this.rollout = rollout;
        this.caches = caches;
        this.metrics = metrics;
        this.clock = clock;
        this.nvidiaDrivers = nvidiaDrivers;
        this.leftoverRbac = leftoverRbac;
        this.driverUpgrade = driverUpgrade;
    }

    /**
     * The reconciler with its real collaborators: the API through {@code client}, caches from the
     * informers.
     */
    public static ClusterPolicyReconciler create(
            KubernetesClient client,
            String namespace,
            Map<String, String> operatorEnv,
            OperatorMetrics metrics,
            Clock clock) {
        return create(client, namespace, operatorEnv, metrics, clock, PodEvictions.of(client));
    }

    /** As above, with the driver upgrade's pod writes given (tests: a fake Eviction API). */
    public static ClusterPolicyReconciler create(
            KubernetesClient client,
            String namespace,
            Map<String, String> operatorEnv,
            OperatorMetrics metrics,
            Clock clock,
            PodEvictions evictions) {
        return create(
                client, namespace, operatorEnv, metrics, clock, evictions, EventRecorder.NONE);
    }

    /**
     * The Events recorder the controller writes through: asynchronous, correlated and rate-limited
     * as client-go's ({@link AsyncEventRecorder}), core/v1 Events through {@code client}.
     */
    public static AsyncEventRecorder eventRecorder(
            KubernetesClient client, OperatorMetrics metrics, Clock clock) {
        return new AsyncEventRecorder(
                new EventCorrelator(EventCorrelator.Settings.CLIENT_GO, clock),
                new Fabric8EventSink(client, System.getenv("HOSTNAME")),
                metrics::event);
    }

    /** As above, with the Events recorded through {@code events}. */
    public static ClusterPolicyReconciler create(
            KubernetesClient client,
            String namespace,
            Map<String, String> operatorEnv,
            OperatorMetrics metrics,
            Clock clock,
            PodEvictions evictions,
            EventRecorder events) {
        InformerCaches caches = new InformerCaches();
        caches.gpuClaims(new ResourceClaimCache(client));
        return new ClusterPolicyReconciler(
                namespace,
                new OperandModels(operatorEnv),
                new ResourceApplier(ResourceApplier.Api.of(client), metrics::write, caches, clock),
                new NodeRollout(
                        NodeRollout.LabelPatcher.of(client),
                        NodeRollout.StackWriter.of(client),
                        caches,
                        metrics,
                        clock,
                        events),
                caches,
                metrics,
                clock,
                new NvidiaDrivers(NvidiaDrivers.of(client), clock),
                new LeftoverRbac(LeftoverRbac.Lister.of(client)),
                new DriverUpgrade(
                        namespace,
                        caches,
                        DriverUpgrade.NodePatcher.of(client),
                        evictions,
                        metrics,
                        clock,
                        events),
                new NvidiaDriverSource(client, clock),
                events);
    }

    /**
     * Informers on nodes, operand pods and operand DaemonSets. Their mappers are pure: any change
     * maps to the policies; which nodes changed is worked out by the roll-out step from the caches.
     */
    @Override
    public List<EventSource<?, ClusterPolicy>> prepareEventSources(
            EventSourceContext<ClusterPolicy> context) {
        policies = context.getPrimaryCache();
        var nodes =
                new InformerEventSource<>(
                        InformerEventSourceConfiguration.from(Node.class, ClusterPolicy.class)
                                .withName("nodes")
                                .withItemStore(TrimmedItemStore.nodes())
                                .withPrimaryToSecondaryMapper(NO_INDEX)
                                .withInformerListLimit(LIST_PAGE)
                                .withSecondaryToPrimaryMapper(n -> allPolicies())
                                // kubelet heartbeats change status only; the gate reads labels,
                                // the status the validator's annotations
                                .withOnUpdateFilter(NodeChanges::matters)
                                .build(),
                        context);
        var pods =
                new InformerEventSource<>(
                        InformerEventSourceConfiguration.from(Pod.class, ClusterPolicy.class)
                                .withName("operand-pods")
                                .withItemStore(TrimmedItemStore.pods())
                                .withNamespaces(Set.of(namespace))
                                .withLabelSelector(OPERAND_SELECTOR)
                                .withPrimaryToSecondaryMapper(NO_INDEX)
                                .withInformerListLimit(LIST_PAGE)
                                .withSecondaryToPrimaryMapper(p -> allPolicies())
                                .withOnUpdateFilter(
                                        (now, before) ->
                                                OperandPods.isReady(now)
                                                                != OperandPods.isReady(before)
                                                        || !Objects.equals(
                                                                now.getSpec().getNodeName(),
                                                                before.getSpec().getNodeName())
                                                        || !Objects.equals(
                                                                now.getMetadata().getLabels(),
                                                                before.getMetadata().getLabels())
                                                        || !Objects.equals(
                                                                now.getMetadata().getAnnotations(),
                                                                before.getMetadata()
                                                                        .getAnnotations())
                                                        || !Objects.equals(
                                                                now.getMetadata()
                                                                        .getDeletionTimestamp(),
                                                                before.getMetadata()
                                                                        .getDeletionTimestamp())
                                                        // the stuck reason names it
                                                        || !Objects.equals(
                                                                OperandPods.pullFailure(now),
                                                                OperandPods.pullFailure(before)))
                                .build(),
                        context);
        pods.addIndexers(Map.of(InformerCaches.PODS_BY_NODE, OperandPods::nodeOf));
        var daemonSets =
                new InformerEventSource<>(
                        InformerEventSourceConfiguration.from(DaemonSet.class, ClusterPolicy.class)
                                .withName("operand-daemonsets")
                                .withNamespaces(Set.of(namespace))
                                .withLabelSelector(OPERAND_SELECTOR)
                                .withPrimaryToSecondaryMapper(NO_INDEX)
                                .withInformerListLimit(LIST_PAGE)
                                .withSecondaryToPrimaryMapper(d -> allPolicies())
                                .build(),
                        context);
        // every pod but the operand pods (cached once, above), for the driver upgrade (GPU pods to
        // evict, jobs to wait for); only the pods of a node whose upgrade is under way wake the
        // reconcile
        var nodePods =
                new InformerEventSource<>(
                        InformerEventSourceConfiguration.from(Pod.class, ClusterPolicy.class)
                                .withName("node-pods")
                                .withItemStore(TrimmedItemStore.pods())
                                .withLabelSelector(
                                        PodContract.MANAGED_BY_LABEL
                                                + "!="
                                                + PodContract.MANAGED_BY)
                                .withPrimaryToSecondaryMapper(NO_INDEX)
                                .withInformerListLimit(LIST_PAGE)
                                .withSecondaryToPrimaryMapper(
                                        p -> onUpgradingNode(p) ? allPolicies() : Set.of())
                                .withOnUpdateFilter(
                                        (now, before) ->
                                                !Objects.equals(phase(now), phase(before))
                                                        || !Objects.equals(
                                                                now.getMetadata()
                                                                        .getDeletionTimestamp(),
                                                                before.getMetadata()
                                                                        .getDeletionTimestamp())
                                                        || !Objects.equals(
                                                                now.getSpec().getNodeName(),
                                                                before.getSpec().getNodeName()))
                                .build(),
                        context);
        nodePods.addIndexers(Map.of(InformerCaches.PODS_BY_NODE, OperandPods::nodeOf));
        caches.connect(nodes, pods, daemonSets, nodePods);
        if (nvidiaDriverSource == null) {
            return List.of(nodes, pods, daemonSets, nodePods);
        }
        nvidiaDriverSource.wake(this::allPolicies);
        return List.of(nodes, pods, daemonSets, nodePods, nvidiaDriverSource);
    }

    private boolean onUpgradingNode(Pod pod) {
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        return node != null && caches.node(node).map(DriverUpgrade::upgrading).orElse(false);
    }

    private static String phase(Pod p) {
        return p.getStatus() == null ? null : p.getStatus().getPhase();
    }

    /**
     * The informers list in pages of this many objects, as client-go's reflector does: in one
     * answer, 5,000 kubelet-shaped nodes are ~55 MB of JSON, read whole (and copied) before the
     * first is parsed, which at start took the controller's heap past what its container allows.
     */
    static final long LIST_PAGE = 500;

    /**
     * The reconcile reads the informers through {@link InformerCaches}, never through JOSDK's
     * secondary resources. Given a primary-to-secondary mapper, JOSDK keeps no index of them, which
     * it would otherwise update on every event, heartbeats included, before the update filter (a
     * call to {@link #allPolicies} and a set of every node per policy).
     */
    private static final PrimaryToSecondaryMapper<ClusterPolicy> NO_INDEX =
            p -> {
                throw new UnsupportedOperationException(
                        "the reconcile reads the informers through InformerCaches");
            };

    private Set<ResourceID> allPolicies() {
        return policies.list().map(ResourceID::fromResource).collect(Collectors.toSet());
    }

    @Override
    public UpdateControl<ClusterPolicy> reconcile(
            ClusterPolicy policy, Context<ClusterPolicy> context) {
        Observed observed = observe(policy);
        if (observed.activePolicy().isPresent()) {
            metrics.policyUnavailable();
            return statusUpdate(policy, ignoredStatus(policy, observed));
        }
        PolicyCheck.Checked checked = validate(policy);
        Desired desired = checked.errors().isEmpty() ? desiredState(checked) : null;
        List<String> errors = desired == null ? checked.errors() : desired.state().errors();
        if (!errors.isEmpty()) {
            // an invalid spec changes nothing that is deployed; it only says why
            metrics.failed();
            LOG.warn("ClusterPolicy {} is invalid: {}", policy.getMetadata().getName(), errors);
            ClusterPolicyStatus invalid = invalidStatus(policy, observed, errors, checked);
            if (!sameStatus(policy.getStatus(), invalid)) {
                // a change only: a reconcile of the same invalid spec writes nothing
                events.record(
                        InvolvedObject.of(policy),
                        EventType.WARNING,
                        EventReasons.INVALID_SPEC,
                        String.join("; ", errors));
            }
            return statusUpdate(policy, invalid);
        }
        List<PolicyWarning> applyWarnings = apply(policy, desired.state());
        Map<String, UpgradePolicy> upgradePolicies = upgradePolicies(checked, desired);
        DriverHandover.AutoUpgrade autoUpgrade = autoUpgrade(upgradePolicies);
        prune(policy, desired, autoUpgrade);
        ClusterRollup nodes = rollOutNodes(policy, desired, autoUpgrade);
        Optional<DriverUpgrade.Result> upgrade = upgradeDrivers(policy, desired, upgradePolicies);
        desired.driverPools().ifPresent(pools -> nvidiaDriverStatus(pools, observed));
        ClusterPolicyStatus status =
                status(policy, observed, desired, checked, nodes, upgrade, applyWarnings);
        metrics.reconciled(
                status.getState() == State.READY
                        ? OperatorMetrics.SUCCESS
                        : OperatorMetrics.NOT_READY,
                status.getNodes().getGpuNodes(),
                nodes.clusterHasNfd());
        metrics.nodesWaiting(nodes.waitingAt());
        UpdateControl<ClusterPolicy> control = statusUpdate(policy, status);
        // a node waiting on a timeout (or a refused eviction) needs a pass no event brings
        upgrade.flatMap(DriverUpgrade.Result::requeueAfter)
                .ifPresent(
                        after -> {
                            // the sooner of the upgrade's wait and a status patch's follow-up
                            Optional<Long> already = control.getScheduleDelay();
                            if (already.isEmpty() || after.toMillis() < already.get()) {
                                control.rescheduleAfter(after);
                            }
                        });
        return control;
    }

    /**
     * What the reconcile starts from.
     *
     * @param activePolicy the name of the policy that wins the singleton rule, when it is another
     *     one
     */
    record Observed(long generation, Optional<String> activePolicy, String now) {}

    /**
     * Step 1: which policy is active, the policy's generation, the time. Nodes and pods are read by
     * step 6.
     */
    private Observed observe(ClusterPolicy policy) {
        String name = policy.getMetadata().getName();
        Optional<String> other =
                activeOf(policies.list().toList())
                        .map(p -> p.getMetadata().getName())
                        .filter(active -> !active.equals(name));
        return new Observed(
                Optional.ofNullable(policy.getMetadata().getGeneration()).orElse(0L),
                other,
                Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
    }

    /** The last policy checked: its uid and resourceVersion, and the outcome. */
    private record LastCheck(String uid, String resourceVersion, PolicyCheck.Checked checked) {}

    private volatile LastCheck lastCheck;

    /**
     * Step 2: defaults and semantic validation (api-crds); errors mean nothing may be applied. A
     * pure function of the spec, so the outcome is kept while the object's resourceVersion stays
     * (node and pod events reconcile the same policy object many times); objects without one (unit
     * tests) are checked every time.
     */
    private PolicyCheck.Checked validate(ClusterPolicy policy) {
        String uid = policy.getMetadata().getUid();
        String version = policy.getMetadata().getResourceVersion();
        LastCheck last = lastCheck;
        if (version != null
                && last != null
                && version.equals(last.resourceVersion())
                && java.util.Objects.equals(uid, last.uid())) {
            return last.checked();
        }
        PolicyCheck.Checked checked = PolicyCheck.check(policy.getSpec());
        if (version != null) {
            lastCheck = new LastCheck(uid, version, checked);
        }
        return checked;
    }

    /**
     * The settings of a valid policy and every object they ask for.
     *
     * @param runtimeWarnings nodes whose container runtime is not the rendered one
     */
    record Desired(
            PolicySettings settings,
            DesiredState state,
            List<PolicyWarning> runtimeWarnings,
            Optional<DriverPoolPlan> driverPools) {}

    /** Step 3: the desired objects, pure; an operand whose image cannot be resolved is an error. */
    private Desired desiredState(PolicyCheck.Checked checked) {
        ContainerRuntimeDetection.Detected runtime =
                ContainerRuntimeDetection.detect(caches.nodes().toList());
        PolicySettings settings =
                ContainerRuntimeDetection.apply(
                        ClusterPolicySettings.from(checked.effective()), runtime.runtime());
        List<PolicyWarning> runtimeWarnings =
                ContainerRuntimeDetection.statusWarnings(runtime, settings);
        runtimeWarnings.forEach(w -> LOG.warn("container runtime: {}", w.getMessage()));
        DesiredState state = DesiredState.of(models, settings, namespace);
        if (!usesNvidiaDrivers(checked, settings)) {
            if (nvidiaDriverSource != null) {
                nvidiaDriverSource.stopWatching();
            }
            return new Desired(settings, state, runtimeWarnings, Optional.empty());
        }
        Optional<List<NVIDIADriver>> drivers =
                nvidiaDriverSource == null ? Optional.empty() : nvidiaDriverSource.list();
        if (drivers.isEmpty()) {
            // nothing deployed changes until the NVIDIADrivers can be read
            List<String> errors = new ArrayList<>(state.errors());
            errors.add(
                    "spec.driver.useNvidiaDriverCRD is true, but NVIDIADrivers cannot be listed:"
                            + " is the CRD "
                            + NVIDIADriver.CRD_NAME
                            + " installed?");
            return new Desired(
                    settings,
                    new DesiredState(
                            state.common(),
                            state.enabled(),
                            state.disabled(),
                            state.commonDisabled(),
                            List.copyOf(errors)),
                    runtimeWarnings,
                    Optional.empty());
        }
        String label = settings.simulation().nodeLabel();
        List<Node> gpuNodes =
                caches.nodes()
                        .filter(
                                n ->
                                        NodeLabels.isGpuNode(
                                                n.getMetadata().getLabels() == null
                                                        ? Map.of()
                                                        : n.getMetadata().getLabels(),
                                                label))
                        .toList();
        DriverPoolPlan pools =
                DriverPoolPlan.of(
                        models,
                        settings,
                        namespace,
                        drivers.get(),
                        gpuNodes,
                        driverOfPool(),
                        poolsWithoutOwnerSelector());
        return new Desired(
                settings,
                state.withDriverPools(pools.daemonSets().values(), namespace),
                runtimeWarnings,
                Optional.of(pools));
    }

    /**
     * Pool id → the NVIDIADriver of its existing driver DaemonSet: a contested node keeps the
     * driver of the pool it is in (fail closed).
     */
    private Map<String, String> driverOfPool() {
        Map<String, String> out = new java.util.TreeMap<>();
        caches.daemonSets()
                .forEach(
                        ds -> {
                            Map<String, String> l = ds.getMetadata().getLabels();
                            Map<String, String> a = ds.getMetadata().getAnnotations();
                            String pool = l == null ? null : l.get(DriverPools.POOL_LABEL);
                            String driver = a == null ? null : a.get(DriverPools.DRIVER_ANNOTATION);
                            if (pool != null && driver != null) {
                                out.put(pool, driver);
                            }
                        });
        return out;
    }

    /**
     * The pools whose existing DaemonSet does not select the owner label (an earlier version's).
     */
    private Set<String> poolsWithoutOwnerSelector() {
        Set<String> out = new java.util.TreeSet<>();
        caches.daemonSets()
                .forEach(
                        ds -> {
                            Map<String, String> l = ds.getMetadata().getLabels();
                            String pool = l == null ? null : l.get(DriverPools.POOL_LABEL);
                            Map<String, String> selector =
                                    ds.getSpec().getTemplate().getSpec().getNodeSelector();
                            if (pool != null
                                    && (selector == null
                                            || !selector.containsKey(DriverPools.OWNER_LABEL))) {
                                out.add(pool);
                            }
                        });
        return out;
    }

    /** NVIDIADriver mode: {@code driver.useNvidiaDriverCRD} with the driver enabled. */
    private static boolean usesNvidiaDrivers(PolicyCheck.Checked checked, PolicySettings settings) {
        return settings.enabled(Operand.DRIVER)
                && checked.effective().getDriver() != null
                && Boolean.TRUE.equals(checked.effective().getDriver().getUseNvidiaDriverCRD());
    }

    /**
     * Step 4: creates or updates each desired object owned by the policy; an unchanged one gets no
     * write. Returns the warnings for the status: a ServiceMonitor or PrometheusRule the cluster
     * has no kind for (no Prometheus Operator CRDs) is skipped, and tried again after {@value
     * #MAX_INTERVAL_MINUTES} minutes.
     */
    private List<PolicyWarning> apply(ClusterPolicy policy, DesiredState desired) {
        List<PolicyWarning> warnings = new ArrayList<>();
        for (HasMetadata object : desired.toApply()) {
            Instant missingAt = prometheusKindMissingAt.get(object.getKind());
            if (object instanceof PrometheusOperatorObject optional
                    && missingAt != null
                    && clock.instant()
                            .isBefore(missingAt.plus(Duration.ofMinutes(MAX_INTERVAL_MINUTES)))) {
                warnings.add(noPrometheusKind(object, optional.policyField()));
                continue;
            }
            ResourceApplier.Result result;
            try {
                // the NVIDIADriver pools' DaemonSets come owned by their NVIDIADriver
                boolean owned =
                        object.getMetadata().getOwnerReferences() != null
                                && !object.getMetadata().getOwnerReferences().isEmpty();
                result = applier.apply(owned ? object : ResourceApplier.ownedBy(object, policy));
            } catch (KubernetesClientException e) {
                if (!(object instanceof PrometheusOperatorObject optional) || e.getCode() != 404) {
                    throw e;
                }
                prometheusKindMissingAt.put(object.getKind(), clock.instant());
                warnings.add(noPrometheusKind(object, optional.policyField()));
                continue;
            }
            if (object instanceof PrometheusOperatorObject) {
                prometheusKindMissingAt.remove(object.getKind());
            }
            if (object instanceof DaemonSet
                    && (result == ResourceApplier.Result.CREATED
                            || result == ResourceApplier.Result.UPDATED)) {
                daemonSetEvent(
                        policy,
                        result == ResourceApplier.Result.CREATED
                                ? EventReasons.DAEMONSET_CREATED
                                : EventReasons.DAEMONSET_UPDATED,
                        ObjectRef.of(object),
                        result == ResourceApplier.Result.CREATED ? "created" : "updated");
            }
        }
        return warnings;
    }

    /** The status warning for an object the cluster has no kind for, naming its field. */
    private static PolicyWarning noPrometheusKind(HasMetadata object, String policyField) {
        return new PolicyWarning(
                policyField,
                "no "
                        + object.getKind()
                        + " created: this cluster does not serve "
                        + object.getApiVersion()
                        + " "
                        + object.getKind()
                        + "s (install the Prometheus Operator's CRDs);"
                        + " tried again every "
                        + MAX_INTERVAL_MINUTES
                        + " minutes");
    }

    /**
     * Step 5: deletes what disabled operands left, by kind and name, the DaemonSet first; then,
     * once per policy and controller start, RBAC that an earlier version made for an operand and
     * this one no longer renders ({@link LeftoverRbac}).
     */
    /** The NVIDIADrivers whose spec is refused now (they still exist). */
    private static Set<String> refusedDrivers(Desired desired) {
        return desired.driverPools().map(p -> p.errors().keySet()).orElse(Set.of());
    }

    private void prune(
            ClusterPolicy policy, Desired wanted, DriverHandover.AutoUpgrade autoUpgrade) {
        DesiredState desired = wanted.state();
        Set<String> refusedDrivers = refusedDrivers(wanted);
        for (ObjectRef ref : desired.toDelete()) {
            if (DaemonSet.class.equals(ref.kind())
                    && Operand.DRIVER.daemonSetName().equals(ref.name())) {
                // NVIDIADriver mode on: the ClusterPolicy's driver DaemonSet goes
                caches.daemonSets()
                        .filter(ds -> ds.getMetadata().getName().equals(ref.name()))
                        .findFirst()
                        .ifPresentOrElse(
                                ds -> deleteDriverDaemonSet(policy, ds, wanted, autoUpgrade),
                                () ->
                                        deleted(
                                                policy,
                                                ref,
                                                applier.reconcile(ref, Optional.empty())));
                continue;
            }
            deleted(policy, ref, applier.reconcile(ref, Optional.empty()));
        }
        List<ObjectRef> kept = new ArrayList<>(desired.toDelete());
        desired.toApply().forEach(o -> kept.add(ObjectRef.of(o)));
        for (ObjectRef ref : leftoverRbac.find(policy.getMetadata().getUid(), namespace, kept)) {
            LOG.info("deleting {}: made by an earlier version, not rendered by this one", ref);
            applier.reconcile(ref, Optional.empty());
        }
        pruneDriverPools(policy, wanted, refusedDrivers, autoUpgrade);
    }

    /**
     * A driver DaemonSet no longer wanted. While a node it runs a driver pod on waits for its
     * upgrade to hand the node over ({@link DriverHandover}), it is deleted with orphan
     * propagation: the pods keep running under their GPU pods until the upgrade replaces them node
     * by node. Else (the driver disabled, automatic upgrades off, nodes out of every driver) its
     * pods go with it, as before.
     */
    private void deleteDriverDaemonSet(
            ClusterPolicy policy,
            DaemonSet ds,
            Desired wanted,
            DriverHandover.AutoUpgrade autoUpgrade) {
        ObjectRef ref = ObjectRef.of(ds);
        if (wanted.settings().enabled(Operand.DRIVER)
                && handsOver(ds.getMetadata().getUid(), wanted, autoUpgrade)) {
            LOG.info(
                    "deleting DaemonSet {} with orphan propagation: its driver pods stay until the"
                            + " upgrade replaces them node by node",
                    ds.getMetadata().getName());
            deleted(policy, ref, applier.deleteKeepingDependents(ref));
        } else {
            deleted(policy, ref, applier.reconcile(ref, Optional.empty()));
        }
    }

    /** Whether a node running a pod of this DaemonSet keeps it until its upgrade hands it over. */
    private boolean handsOver(
            String daemonSetUid, Desired wanted, DriverHandover.AutoUpgrade autoUpgrade) {
        DriverRouting routing = wanted.driverPools().map(DriverPoolPlan::routing).orElse(null);
        return caches.nodes()
                .anyMatch(
                        node -> {
                            List<io.fabric8.kubernetes.api.model.Pod> pods =
                                    caches.operandPodsOn(node.getMetadata().getName());
                            Map<String, String> labels = node.getMetadata().getLabels();
                            return pods.stream()
                                            .anyMatch(
                                                    p ->
                                                            UpgradeNodes.isOperandPod(
                                                                            p, Operand.DRIVER)
                                                                    && DriverHandover.ownedBy(
                                                                            p, daemonSetUid))
                                    && DriverHandover.holdsLabels(
                                            node,
                                            labels == null ? Map.of() : labels,
                                            true,
                                            pods,
                                            routing,
                                            autoUpgrade);
                        });
    }

    /** An operand DaemonSet created, updated or deleted: an Event on the policy. */
    private void daemonSetEvent(ClusterPolicy policy, String reason, ObjectRef ds, String verb) {
        events.record(
                InvolvedObject.of(policy),
                EventType.NORMAL,
                reason,
                "DaemonSet " + ds.namespace() + "/" + ds.name() + " " + verb);
    }

    private void deleted(ClusterPolicy policy, ObjectRef ref, ResourceApplier.Result result) {
        if (result == ResourceApplier.Result.DELETED && DaemonSet.class.equals(ref.kind())) {
            daemonSetEvent(policy, EventReasons.DAEMONSET_DELETED, ref, "deleted");
        }
    }

    /**
     * The pools' driver DaemonSets no longer wanted: their pool lost its nodes, their NVIDIADriver
     * is gone, or NVIDIADriver mode is off. Fail closed: the DaemonSets of an NVIDIADriver whose
     * spec is refused now (an edit that does not validate) are kept as they are, so its nodes keep
     * their driver pods under their running GPU pods until the spec is valid again.
     */
    private void pruneDriverPools(
            ClusterPolicy policy,
            Desired desired,
            Set<String> refusedDrivers,
            DriverHandover.AutoUpgrade autoUpgrade) {
        Set<String> wanted =
                desired.state().toApply().stream()
                        .filter(DaemonSet.class::isInstance)
                        .map(o -> o.getMetadata().getName())
                        .collect(Collectors.toSet());
        List<DaemonSet> stale =
                caches.daemonSets()
                        .filter(
                                ds ->
                                        ds.getMetadata().getLabels() != null
                                                && ds.getMetadata()
                                                        .getLabels()
                                                        .containsKey(DriverPools.POOL_LABEL)
                                                && !wanted.contains(ds.getMetadata().getName())
                                                && !refusedDrivers.contains(driverOf(ds)))
                        .toList();
        for (DaemonSet ds : stale) {
            LOG.info(
                    "deleting DaemonSet {}: its driver pool has no node",
                    ds.getMetadata().getName());
            deleteDriverDaemonSet(policy, ds, desired, autoUpgrade);
        }
    }

    private static String driverOf(DaemonSet ds) {
        Map<String, String> a = ds.getMetadata().getAnnotations();
        return a == null ? null : a.get(DriverPools.DRIVER_ANNOTATION);
    }

    /**
     * Step 6: moves the nodes that changed (or all) through their gates; returns the summed node
     * figures.
     */
    private ClusterRollup rollOutNodes(
            ClusterPolicy policy, Desired desired, DriverHandover.AutoUpgrade autoUpgrade) {
        Set<Operand> enabled = EnumSet.noneOf(Operand.class);
        for (Operand o : Operand.values()) {
            if (desired.settings().enabled(o)) {
                enabled.add(o);
            }
        }
        return rollout.pass(
                new NodeRollout.Inputs(
                        policy.getMetadata().getUid(),
                        enabled,
                        desired.settings().simulation().nodeLabel(),
                        desired.state().templateHashes(),
                        desired.settings().migStrategy(),
                        desired.settings().nodeReadiness().gpuNotReadyTaint(),
                        desired.driverPools().map(DriverPoolPlan::routing).orElse(null),
                        desired.settings().pluginConfig().enabled(),
                        autoUpgrade),
                InvolvedObject.of(policy));
    }

    /**
     * Step 7: the driver upgrade (an OnDelete DaemonSet): one pass of the upgrade machine over the
     * nodes with a driver pod of ours, its writes applied; none while the driver is disabled.
     */
    private Optional<DriverUpgrade.Result> upgradeDrivers(
            ClusterPolicy policy, Desired desired, Map<String, UpgradePolicy> policies) {
        if (!desired.settings().enabled(Operand.DRIVER)) {
            return Optional.empty();
        }
        ClusterPolicyStatus current = policy.getStatus();
        Map<String, String> lastGood =
                current == null
                                || current.getDriverUpgrade() == null
                                || current.getDriverUpgrade().getLastGoodVersions() == null
                        ? Map.of()
                        : current.getDriverUpgrade().getLastGoodVersions();
        if (desired.driverPools().isPresent()) {
            // one pass per NVIDIADriver over its nodes, under its own policy
            DriverRouting routing = desired.driverPools().get().routing();
            return Optional.of(
                    driverUpgrade.pass(
                            policies,
                            n -> routing.driverOf(n).orElse(null),
                            routing::templateHashOf,
                            n -> routing.poolOf(n).orElse(null),
                            lastGood,
                            InvolvedObject.of(policy)));
        }
        return Optional.of(
                driverUpgrade.pass(
                        policies.get(""),
                        desired.state().templateHashes().get(Operand.DRIVER),
                        lastGood,
                        InvolvedObject.of(policy)));
    }

    /**
     * The upgrade policies that govern the driver pods: the ClusterPolicy's (key ""), and in
     * NVIDIADriver mode each NVIDIADriver's, its upgradePolicy if it has one, else the
     * ClusterPolicy's.
     */
    private static Map<String, UpgradePolicy> upgradePolicies(
            PolicyCheck.Checked checked, Desired desired) {
        UpgradePolicy clusterPolicy =
                UpgradePolicy.from(checked.effective().getDriver().getUpgradePolicy());
        Map<String, UpgradePolicy> policies = new java.util.TreeMap<>();
        desired.driverPools()
                .ifPresent(
                        pools ->
                                pools.drivers()
                                        .keySet()
                                        .forEach(
                                                d ->
                                                        policies.put(
                                                                d,
                                                                pools.upgradePolicies()
                                                                        .getOrDefault(
                                                                                d,
                                                                                clusterPolicy))));
        if (desired.driverPools().isEmpty()) {
            policies.put("", clusterPolicy);
        }
        return policies;
    }

    /** Whether each driver's upgrade moves nodes by itself (for the handover of driver pods). */
    private static DriverHandover.AutoUpgrade autoUpgrade(Map<String, UpgradePolicy> policies) {
        Map<String, Boolean> byDriver = new java.util.TreeMap<>();
        policies.forEach((d, p) -> byDriver.put(d, p.autoUpgrade()));
        Boolean clusterPolicy = byDriver.remove("");
        return new DriverHandover.AutoUpgrade(Boolean.TRUE.equals(clusterPolicy), byDriver);
    }

    /**
     * Step 7b (NVIDIADriver mode): each NVIDIADriver's status, written when it changed; a driver
     * counts as ready on a node where its pool's pod is Ready or the host has a driver. A conflict
     * that appears or changes is also a Warning Event on the NVIDIADriver.
     */
    private void nvidiaDriverStatus(DriverPoolPlan pools, Observed observed) {
        DriverRouting routing = pools.routing();
        Map<String, NVIDIADriverStatus> previous = new java.util.HashMap<>();
        pools.drivers()
                .forEach(
                        (name, d) -> {
                            if (d.getStatus() != null) {
                                previous.put(name, d.getStatus());
                            }
                        });
        Map<String, NVIDIADriverStatus> statuses =
                NvidiaDriverStatuses.of(
                        pools,
                        node -> driverReadyOn(node, routing),
                        namespace,
                        previous,
                        observed.now());
        statuses.forEach(
                (name, status) -> {
                    NVIDIADriver driver = pools.drivers().get(name);
                    try {
                        NVIDIADriverStatus before = nvidiaDriverSource.current(driver);
                        if (nvidiaDriverSource.writeStatus(driver, status)) {
                            metrics.write("patch", "NVIDIADriver/status");
                            // once per conflict: when it appears or changes
                            NvidiaDriverStatuses.newConflict(before, status)
                                    .ifPresent(
                                            m ->
                                                    events.record(
                                                            InvolvedObject.of(driver),
                                                            EventType.WARNING,
                                                            EventReasons.CONFLICTING_NODE_SELECTOR,
                                                            m));
                        }
                    } catch (RuntimeException e) {
                        // the next reconcile writes it; the ClusterPolicy's own work is done
                        LOG.warn(
                                "cannot write the status of NVIDIADriver {}: {}",
                                name,
                                e.toString());
                    }
                });
    }

    private boolean driverReadyOn(String name, DriverRouting routing) {
        Optional<Node> node = caches.node(name);
        if (node.isEmpty()) {
            return false;
        }
        Map<String, String> labels = node.get().getMetadata().getLabels();
        if (labels != null
                && NodeLabels.PRE_INSTALLED.equals(labels.get(Operand.DRIVER.deployLabel()))) {
            return true;
        }
        String pool = routing.poolOf(node.get()).orElse(null);
        return pool != null
                && caches.operandPodsOn(name).stream()
                        .anyMatch(
                                p ->
                                        p.getMetadata().getDeletionTimestamp() == null
                                                && p.getMetadata().getLabels() != null
                                                && pool.equals(
                                                        p.getMetadata()
                                                                .getLabels()
                                                                .get(DriverPools.POOL_LABEL))
                                                && OperandPods.isReady(p));
    }

    /** Step 8: the whole status of a reconciled policy, in one piece. */
    private ClusterPolicyStatus status(
            ClusterPolicy policy,
            Observed observed,
            Desired desired,
            PolicyCheck.Checked checked,
            ClusterRollup nodes,
            Optional<DriverUpgrade.Result> upgrade,
            List<PolicyWarning> applyWarnings) {
        ClusterPolicyStatus status =
                StatusCalculator.compute(
                        new StatusCalculator.Observation(
                                observed.generation(), namespace, desired.settings(), nodes),
                        currentConditions(policy),
                        observed.now());
        List<PolicyWarning> runtimeAndMatrix = new ArrayList<>(desired.runtimeWarnings());
        runtimeAndMatrix.addAll(matrixWarnings(checked, desired));
        runtimeAndMatrix.addAll(applyWarnings);
        status.setWarnings(warnings(checked, runtimeAndMatrix, desired.driverPools()));
        status.setDriverUpgrade(
                upgrade.map(
                                r ->
                                        UpgradeStatus.of(
                                                r.plan(),
                                                r.nodes(),
                                                r.lastGood(),
                                                desired.driverPools()
                                                        .map(p -> p.assignment().driverOfNode())
                                                        .orElse(Map.of())))
                        .orElse(null));
        return status;
    }

    /** The policy and the GPU nodes outside the version matrix ({@link VersionMatrixCheck}). */
    private List<PolicyWarning> matrixWarnings(PolicyCheck.Checked checked, Desired desired) {
        if (matrix == null) {
            matrix = VersionMatrix.load();
        }
        PolicySettings settings = desired.settings();
        String label = settings.simulation().nodeLabel();
        return VersionMatrixCheck.check(
                        matrix,
                        new VersionMatrixCheck.PolicyVersions(
                                settings.enabled(Operand.DRIVER)
                                        ? settings.nodeReadiness().driverVersion()
                                        : null,
                                settings.enabled(Operand.CONTAINER_TOOLKIT)
                                        ? checked.effective().getToolkit().getVersion()
                                        : null,
                                ClusterPolicyReconciler.class
                                        .getPackage()
                                        .getImplementationVersion()),
                        caches.nodes()
                                .filter(
                                        n ->
                                                NodeLabels.isGpuNode(
                                                        n.getMetadata().getLabels() == null
                                                                ? Map.of()
                                                                : n.getMetadata().getLabels(),
                                                        label))
                                .map(NodeVersions::of)
                                .toList())
                .stream()
                .map(w -> new PolicyWarning(w.subject(), w.message()))
                .toList();
    }

    /**
     * Fields set but not acted on, each NVIDIADriver (also not acted on), then nodes whose runtime
     * is not the rendered one; null when none.
     */
    private List<PolicyWarning> warnings(
            PolicyCheck.Checked checked,
            List<PolicyWarning> runtimeWarnings,
            Optional<DriverPoolPlan> driverPools) {
        List<PolicyWarning> all = new ArrayList<>(checked.warnings());
        if (driverPools.isEmpty()) {
            all.addAll(nvidiaDrivers.warnings());
        } else {
            // in NVIDIADriver mode: the drivers that deploy nothing somewhere, and why
            DriverPoolPlan pools = driverPools.get();
            pools.assignment()
                    .conflicts()
                    .forEach(
                            (name, c) ->
                                    all.add(
                                            new PolicyWarning(
                                                    "nvidiadrivers/" + name,
                                                    NVIDIADriver.REASON_CONFLICTING_NODE_SELECTOR
                                                            + ": "
                                                            + c.message())));
            pools.errors()
                    .forEach((name, e) -> all.add(new PolicyWarning("nvidiadrivers/" + name, e)));
            // NVIDIA's driver images the pools run the driver agent's of instead
            pools.drivers()
                    .forEach(
                            (name, d) ->
                                    NvidiaDriverSettings.upstreamImage(d.getSpec())
                                            .map(UpstreamImages.Mapped::replacement)
                                            .ifPresent(
                                                    r ->
                                                            all.add(
                                                                    new PolicyWarning(
                                                                            "nvidiadrivers/"
                                                                                    + name
                                                                                    + " "
                                                                                    + r.path(),
                                                                            r.message()))));
        }
        all.addAll(runtimeWarnings);
        return all.isEmpty() ? null : all;
    }

    /** The status of a policy that is not the active one. */
    private ClusterPolicyStatus ignoredStatus(ClusterPolicy policy, Observed observed) {
        return StatusCalculator.ignored(
                policy.getStatus(),
                observed.generation(),
                namespace,
                observed.activePolicy().orElseThrow(),
                observed.now());
    }

    /** The status of an invalid policy: every error, the warnings; nothing else touched. */
    private ClusterPolicyStatus invalidStatus(
            ClusterPolicy policy,
            Observed observed,
            List<String> errors,
            PolicyCheck.Checked checked) {
        ClusterPolicyStatus status =
                StatusCalculator.invalid(
                        policy.getStatus(),
                        observed.generation(),
                        namespace,
                        errors,
                        observed.now());
        status.setWarnings(warnings(checked, List.of(), Optional.empty()));
        return status;
    }

    @Override
    public ErrorStatusUpdateControl<ClusterPolicy> updateErrorStatus(
            ClusterPolicy policy, Context<ClusterPolicy> context, Exception e) {
        metrics.failed();
        LOG.warn(
                "reconcile of ClusterPolicy {} failed: {}",
                policy.getMetadata().getName(),
                e.toString());
        ClusterPolicyStatus status =
                StatusCalculator.failed(
                        policy.getStatus(),
                        e.getMessage() == null ? e.toString() : e.getMessage(),
                        now());
        if (sameStatus(policy.getStatus(), status)) {
            return ErrorStatusUpdateControl.defaultErrorProcessing();
        }
        policy.setStatus(status);
        return ErrorStatusUpdateControl.patchStatus(policy);
    }

    /**
     * On deletion of the active policy: take our labels off every node, keep everyone else's; the
     * driver upgrade's state label off the nodes it is done with; the NVIDIADriver pools'
     * DaemonSets deleted.
     */
    @Override
    public DeleteControl cleanup(ClusterPolicy policy, Context<ClusterPolicy> context) {
        boolean otherActive =
                policies.list()
                        .anyMatch(
                                p ->
                                        !p.getMetadata()
                                                        .getName()
                                                        .equals(policy.getMetadata().getName())
                                                && p.getMetadata().getDeletionTimestamp() == null);
        if (otherActive) {
            return DeleteControl.defaultDelete();
        }
        rollout.removeOurLabels();
        driverUpgrade.removeDoneLabels();
        // the NVIDIADriver pools' DaemonSets are their NVIDIADriver's, not garbage with the policy
        caches.daemonSets()
                .filter(
                        ds ->
                                ds.getMetadata().getLabels() != null
                                        && ds.getMetadata()
                                                .getLabels()
                                                .containsKey(DriverPools.POOL_LABEL))
                .toList()
                .forEach(ds -> applier.reconcile(ObjectRef.of(ds), Optional.empty()));
        return DeleteControl.defaultDelete();
    }

    /**
     * The singleton rule: the oldest creationTimestamp wins, the name breaks ties (upstream's
     * rule).
     */
    public static Optional<ClusterPolicy> activeOf(List<ClusterPolicy> all) {
        return all.stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .min(
                        Comparator.comparing(
                                        (ClusterPolicy p) ->
                                                Instant.parse(
                                                        Optional.ofNullable(
                                                                        p.getMetadata()
                                                                                .getCreationTimestamp())
                                                                .orElse(Instant.EPOCH.toString())))
                                .thenComparing(p -> p.getMetadata().getName()));
    }

    private UpdateControl<ClusterPolicy> statusUpdate(
            ClusterPolicy policy, ClusterPolicyStatus status) {
        if (sameStatus(policy.getStatus(), status)) {
            return UpdateControl.noUpdate();
        }
        policy.setStatus(status);
        metrics.write("patch", "ClusterPolicy/status");
        // A spec edit that lands while this pass runs can be lost: JOSDK caches the object our
        // status patch returns (which holds the edit) and drops the older watch event of the edit
        // as its own. One more pass soon sees the cached object; it writes nothing if nothing
        // changed (seen: a driver.version edit not applied for minutes, DriverUpgradeReconcileTest)
        return UpdateControl.patchStatus(policy).rescheduleAfter(STATUS_FOLLOW_UP);
    }

    /** The pass after a status patch, for a spec edit that raced with it. */
    static final Duration STATUS_FOLLOW_UP = Duration.ofSeconds(1);

    static boolean sameStatus(ClusterPolicyStatus a, ClusterPolicyStatus b) {
        return Serialization.jsonMapper()
                .valueToTree(a)
                .equals(Serialization.jsonMapper().valueToTree(b));
    }

    private static List<io.fabric8.kubernetes.api.model.Condition> currentConditions(
            ClusterPolicy policy) {
        return policy.getStatus() == null ? null : policy.getStatus().getConditions();
    }

    private String now() {
        return Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
