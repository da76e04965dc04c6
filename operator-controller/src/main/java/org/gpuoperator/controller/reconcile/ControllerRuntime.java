package org.gpuoperator.controller.reconcile;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.controller.events.AsyncEventRecorder;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.operand.ImagePaths;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.node.agent.HealthServer;

/**
 * Starts the controller against a given client: JOSDK operator, optional Lease leader election,
 * health and metrics endpoints. Used by the daemon and, in-process, by tests and the e2e harness.
 */
public final class ControllerRuntime implements AutoCloseable {

    /** Lease name, as upstream's controller-runtime election ID. */
    public static final String LEASE_NAME = "53822513.nvidia.com";

    /**
     * @param namespace where operands run and the Lease lives (env OPERATOR_NAMESPACE)
     * @param leaderElection take the Lease before reconciling (on in the Deployment)
     * @param metricsAddress host:port for /metrics, or null for none
     * @param healthAddress host:port for /healthz and /readyz, or null for none
     * @param operatorEnv environment for {@code <OPERAND>_IMAGE} fallbacks
     * @param evictions the driver upgrade's pod writes; null: the API's ({@link PodEvictions#of})
     * @param clock the reconcile's time (upgrade timeouts); null: the system's
     */
    public record Config(
            String namespace,
            boolean leaderElection,
            InetSocketAddress metricsAddress,
            InetSocketAddress healthAddress,
            Map<String, String> operatorEnv,
            PodEvictions evictions,
            Clock clock) {

        public Config(
                String namespace,
                boolean leaderElection,
                InetSocketAddress metricsAddress,
                InetSocketAddress healthAddress,
                Map<String, String> operatorEnv) {
            this(namespace, leaderElection, metricsAddress, healthAddress, operatorEnv, null, null);
        }

        /** The same, with the driver upgrade's pod writes given (a fake Eviction API). */
        public Config withEvictions(PodEvictions e) {
            return new Config(
                    namespace,
                    leaderElection,
                    metricsAddress,
                    healthAddress,
                    operatorEnv,
                    e,
                    clock);
        }

        /** The same, with the reconcile's clock given (tests move it by hand). */
        public Config withClock(Clock c) {
            return new Config(
                    namespace,
                    leaderElection,
                    metricsAddress,
                    healthAddress,
                    operatorEnv,
                    evictions,
                    c);
        }

        public static Config forTests(String namespace) {
            return new Config(namespace, false, null, null, Map.of());
        }
    }

    private final Operator operator;
    private final AsyncEventRecorder events;
    private final OperatorMetrics metrics;
    private final HTTPServer metricsServer;
    private final HttpServer healthServer;
    private final Leadership leadership;

    private ControllerRuntime(
            Operator operator,
            AsyncEventRecorder events,
            OperatorMetrics metrics,
            HTTPServer metricsServer,
            HttpServer healthServer,
            Leadership leadership) {
        this.leadership = leadership;
        this.operator = operator;
        this.events = events;
        this.metrics = metrics;
        this.metricsServer = metricsServer;
        this.healthServer = healthServer;
    }

    public static ControllerRuntime start(KubernetesClient client, Config config) {
        Leadership leadership = new Leadership();
        PrometheusRegistry registry = new PrometheusRegistry();
        OperatorMetrics metrics = new OperatorMetrics(registry);
        Operator operator =
                new Operator(
                        o -> {
                            o.withKubernetesClient(client)
                                    .withCloseClientOnStop(false)
                                    // the fabric8 mock and older clusters lack server-side apply;
                                    // writes here are explicit
                                    .withUseSSAToPatchPrimaryResource(false)
                                    .withSSABasedCreateUpdateMatchForDependentResources(false);
                            if (config.leaderElection()) {
                                o.withLeaderElectionConfiguration(
                                        LeaderElectionConfigurationBuilder
                                                .aLeaderElectionConfiguration(LEASE_NAME)
                                                .withLeaseNamespace(config.namespace())
                                                .withLeaderCallbacks(
                                                        new LeaderCallbacks(
                                                                () -> {},
                                                                leadership::stoppedLeading,
                                                                identity -> {}))
                                                .build());
                            }
                        });
        Clock clock = config.clock() == null ? Clock.systemUTC() : config.clock();
        AsyncEventRecorder events = ClusterPolicyReconciler.eventRecorder(client, metrics, clock);
        operator.register(
                ClusterPolicyReconciler.create(
                        client,
                        config.namespace(),
                        withDefaultImages(config.operatorEnv()),
                        metrics,
                        clock,
                        config.evictions() == null ? PodEvictions.of(client) : config.evictions(),
                        events));
        HTTPServer metricsServer = null;
        HttpServer healthServer = null;
        try {
            if (config.metricsAddress() != null) {
                JvmMetrics.builder().register(registry);
                metricsServer =
                        HTTPServer.builder()
                                .hostname(config.metricsAddress().getHostString())
                                .port(config.metricsAddress().getPort())
                                .registry(registry)
                                .buildAndStart();
            }
            if (config.healthAddress() != null) {
                healthServer = health(config.healthAddress(), operator, leadership);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen: " + e.getMessage(), e);
        }
        operator.start();
        return new ControllerRuntime(
                operator, events, metrics, metricsServer, healthServer, leadership);
    }

    /** The project's images when neither the spec nor the operator's environment names one. */
    public static Map<String, String> withDefaultImages(Map<String, String> env) {
        Map<String, String> merged = new HashMap<>();
        for (Operand operand : Operand.values()) {
            merged.put(
                    ImagePaths.envName(operand),
                    ClusterPolicyDefaults.imageReference(operand.module()));
        }
        merged.putAll(env);
        return merged;
    }

    /**
     * /healthz (failing once the lease is lost, {@link Leadership}) and /readyz (informers synced)
     * through the agents' one health handler.
     */
    static HttpServer health(InetSocketAddress address, Operator operator, Leadership leadership)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        HealthServer.register(
                server,
                "/healthz",
                () -> !leadership.lost(),
                "/readyz",
                () ->
                        operator.getRuntimeInfo().isStarted()
                                && operator.getRuntimeInfo().allEventSourcesAreHealthy());
        server.start();
        return server;
    }

    public OperatorMetrics metrics() {
        return metrics;
    }

    /** The Events recorder (tests wait for it to have written what was recorded). */
    public AsyncEventRecorder events() {
        return events;
    }

    public int healthPort() {
        return healthServer == null ? -1 : healthServer.getAddress().getPort();
    }

    public int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.getPort();
    }

    @Override
    public void close() {
        leadership.stopping(); // the elector's stop on the way out is no lost lease
        operator.stop();
        events.close();
        if (metricsServer != null) {
            metricsServer.close();
        }
        if (healthServer != null) {
            healthServer.stop(0);
        }
    }
}
