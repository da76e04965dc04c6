package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVIDIADrivers, watched only while the active ClusterPolicy uses them ({@code
 * driver.useNvidiaDriverCRD}): the CRD may be absent otherwise, and an informer on a missing
 * resource would keep failing. The informer starts on the first {@link #list()}; a change of an
 * NVIDIADriver's spec or labels (not of its status, which this controller writes) wakes the
 * ClusterPolicy's reconcile. While the CRD cannot be listed, a new attempt is made at most once a
 * minute.
 */
final class NvidiaDriverSource extends AbstractEventSource<NVIDIADriver, ClusterPolicy> {

    static final Duration RETRY = Duration.ofMinutes(1);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(NvidiaDriverSource.class);

    private final KubernetesClient client;
    private final Clock clock;
    private volatile Supplier<Set<ResourceID>> policies = Set::of;
    private SharedIndexInformer<NVIDIADriver> informer;
    private Instant failedAt;

    /** What this controller wrote per NVIDIADriver, until the cache shows a newer version. */
    private final Map<String, Written> written = new ConcurrentHashMap<>();

    private record Written(String fromVersion, NVIDIADriverStatus status) {}

    NvidiaDriverSource(KubernetesClient client, Clock clock) {
        super(NVIDIADriver.class, "nvidiadrivers");
        this.client = client;
        this.clock = clock;
    }

    /** Which policies an NVIDIADriver event wakes (set once JOSDK's primary cache exists). */
    void wake(Supplier<Set<ResourceID>> policies) {
        this.policies = policies;
    }

    /**
     * Every NVIDIADriver, from the informer (started on first use); empty when the CRD cannot be
     * listed.
     */
    synchronized Optional<List<NVIDIADriver>> list() {
        if (informer == null) {
            Instant now = clock.instant();
            if (failedAt != null && now.isBefore(failedAt.plus(RETRY))) {
                return Optional.empty();
            }
            SharedIndexInformer<NVIDIADriver> started =
                    client.resources(NVIDIADriver.class).runnableInformer(0);
            started.addEventHandler(handler());
            try {
                started.start()
                        .toCompletableFuture()
                        .get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                started.close();
                failedAt = now;
                LOG.warn(
                        "cannot watch NVIDIADrivers (is the CRD {} installed?): {}",
                        NVIDIADriver.CRD_NAME,
                        e.toString());
                return Optional.empty();
            }
            informer = started;
            failedAt = null;
        }
        return Optional.of(List.copyOf(informer.getStore().list()));
    }

    /** Stops watching (the policy no longer uses NVIDIADrivers). */
    synchronized void stopWatching() {
        if (informer != null) {
            informer.close();
            informer = null;
        }
        failedAt = null;
        written.clear();
    }

    /**
     * Writes the NVIDIADriver's status (a JSON patch of the status subresource that replaces it
     * whole, conditions included) when it differs from what the object, or our last write, carries.
     *
     * @return whether it wrote
     */
    boolean writeStatus(NVIDIADriver cached, NVIDIADriverStatus status) {
        String name = cached.getMetadata().getName();
        String version = cached.getMetadata().getResourceVersion();
        if (same(current(cached), status)) {
            return false;
        }
        client.resources(NVIDIADriver.class)
                .withName(name)
                .subresource("status")
                .patch(
                        PatchContext.of(PatchType.JSON),
                        Serialization.asJson(
                                List.of(Map.of("op", "add", "path", "/status", "value", status))));
        written.put(name, new Written(version, status));
        return true;
    }

    /** The NVIDIADriver's status: our last write, until the cache shows a newer version. */
    NVIDIADriverStatus current(NVIDIADriver cached) {
        Written w = written.get(cached.getMetadata().getName());
        return w != null
                        && Objects.equals(
                                w.fromVersion(), cached.getMetadata().getResourceVersion())
                ? w.status()
                : cached.getStatus();
    }

    static boolean same(NVIDIADriverStatus a, NVIDIADriverStatus b) {
        return Serialization.jsonMapper()
                .valueToTree(a)
                .equals(Serialization.jsonMapper().valueToTree(b));
    }

    private ResourceEventHandler<NVIDIADriver> handler() {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(NVIDIADriver d) {
                fire();
            }

            @Override
            public void onUpdate(NVIDIADriver before, NVIDIADriver now) {
                // the spec compared as well: not every API server (the test mock) keeps generation
                if (!Objects.equals(
                                before.getMetadata().getGeneration(),
                                now.getMetadata().getGeneration())
                        || !Serialization.jsonMapper()
                                .valueToTree(before.getSpec())
                                .equals(Serialization.jsonMapper().valueToTree(now.getSpec()))
                        || !Objects.equals(
                                before.getMetadata().getLabels(), now.getMetadata().getLabels())) {
                    fire();
                }
            }

            @Override
            public void onDelete(NVIDIADriver d, boolean unknownFinalState) {
                written.remove(d.getMetadata().getName());
                fire();
            }
        };
    }

    private void fire() {
        if (!isRunning()) {
            return;
        }
        for (ResourceID id : policies.get()) {
            getEventHandler().handleEvent(new Event(id));
        }
    }

    @Override
    public Set<NVIDIADriver> getSecondaryResources(ClusterPolicy primary) {
        return Set.of();
    }

    @Override
    public void stop() {
        stopWatching();
        super.stop();
    }
}
