package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.controller.upgrade.GpuClaims;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's ResourceClaims (resource.k8s.io/v1), for the driver upgrade: a pod holding one that
 * the GPU DRA driver allocated is evicted as a GPU pod. Listed and watched from the first question
 * on (the first waits up to {@link #FIRST_LIST_WAIT_S} s for the list). While they are not listed,
 * or when they cannot be (no resource.k8s.io/v1 before Kubernetes 1.34, or no RBAC), every claim is
 * unreadable, and a pod with a claim counts as a GPU pod.
 */
final class ResourceClaimCache implements GpuClaims {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceClaimCache.class);
    static final long FIRST_LIST_WAIT_S = 5;

    private final KubernetesClient client;
    private volatile SharedIndexInformer<ResourceClaim> informer;
    private volatile boolean started;

    ResourceClaimCache(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Optional<Boolean> holdsGpu(String namespace, String name) {
        if (!started) {
            start();
        }
        SharedIndexInformer<ResourceClaim> i = informer;
        if (i == null || !i.hasSynced()) {
            return Optional.empty();
        }
        ResourceClaim claim = i.getStore().getByKey(namespace + "/" + name);
        // a claim gone (or not seen yet) holds no device now
        return Optional.of(GpuClaims.allocatedToGpuDriver(claim));
    }

    private synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        try {
            SharedIndexInformer<ResourceClaim> i =
                    client.resources(ResourceClaim.class).inAnyNamespace().runnableInformer(0);
            informer = i;
            i.start().toCompletableFuture().get(FIRST_LIST_WAIT_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            LOG.info("ResourceClaims not listed yet; until they are, a pod with one is a GPU pod");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warn(
                    "ResourceClaims (resource.k8s.io/v1) cannot be listed ({}): the driver upgrade"
                            + " counts every pod with a resource claim as a GPU pod",
                    e.getMessage());
            SharedIndexInformer<ResourceClaim> i = informer;
            informer = null;
            if (i != null) {
                i.stop();
            }
        }
    }
}
