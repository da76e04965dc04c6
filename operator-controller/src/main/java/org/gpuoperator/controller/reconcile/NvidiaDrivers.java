package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVIDIADriver objects in the cluster while the ClusterPolicy does not use them ({@code
 * driver.useNvidiaDriverCRD} off, or the driver disabled): each one gets a warning in the
 * ClusterPolicy status. Listed at most once a minute (no informer: the CRD may be absent, and such
 * objects are rare); the reconcile runs at least every {@value
 * ClusterPolicyReconciler#MAX_INTERVAL_MINUTES} minutes, so a new one is reported by then.
 */
final class NvidiaDrivers {

    static final String MESSAGE =
            "NVIDIADriver is not acted on: the ClusterPolicy's spec.driver.useNvidiaDriverCRD is"
                    + " not true (or its driver is disabled)";
    static final Duration RELIST = Duration.ofMinutes(1);

    private static final Logger LOG = LoggerFactory.getLogger(NvidiaDrivers.class);

    private final Supplier<List<String>> names;
    private final Clock clock;
    private Instant listedAt;
    private List<String> last = List.of();

    NvidiaDrivers(Supplier<List<String>> names, Clock clock) {
        this.names = names;
        this.clock = clock;
    }

    /** Names from the API; none when the CRD is not installed or listing is not allowed. */
    static Supplier<List<String>> of(KubernetesClient client) {
        return () -> {
            try {
                return client.resources(NVIDIADriver.class).list().getItems().stream()
                        .map(d -> d.getMetadata().getName())
                        .sorted()
                        .toList();
            } catch (KubernetesClientException e) {
                LOG.debug("cannot list NVIDIADrivers (code {}): {}", e.getCode(), e.getMessage());
                return List.of();
            } catch (RuntimeException e) {
                // a warning must never stop the reconcile
                LOG.debug("cannot list NVIDIADrivers: {}", e.toString());
                return List.of();
            }
        };
    }

    /** One warning per NVIDIADriver, path {@code nvidiadrivers/<name>}. */
    synchronized List<PolicyWarning> warnings() {
        Instant now = clock.instant();
        if (listedAt == null || !now.isBefore(listedAt.plus(RELIST))) {
            last = names.get();
            listedAt = now;
        }
        return last.stream().map(n -> new PolicyWarning("nvidiadrivers/" + n, MESSAGE)).toList();
    }
}
