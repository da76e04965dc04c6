package org.gpuoperator.kubelet.emulator;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * A stand-in for the kubelet's device manager that speaks the real v1beta1 protocol over unix
 * sockets, for tests and the simulated cluster. Like the kubelet it:
 *
 * <ul>
 *   <li>serves {@code Registration} on {@code <dir>/kubelet.sock};
 *   <li>on {@code Register}: checks the version and the resource name, dials {@code
 *       <dir>/<endpoint>}, calls {@code GetDevicePluginOptions}, then keeps one {@code
 *       ListAndWatch} stream open per resource and remembers the latest device list (a new
 *       registration for a resource replaces the old endpoint, whose devices stay known until the
 *       new stream's first list);
 *   <li>when a stream ends, counts every device of that resource as unhealthy (allocatable 0,
 *       capacity kept);
 *   <li>calls {@code GetPreferredAllocation} and {@code Allocate} with one container request, as at
 *       pod admission;
 *   <li>{@link #restart()}: deletes the sockets in the directory (except its checkpoint) and
 *       listens on a fresh {@code kubelet.sock}, as a restarting kubelet does.
 * </ul>
 *
 * Thread-safe. Use {@link #start(Path)}, then {@link #close()}.
 */
public final class KubeletEmulator implements AutoCloseable {

    /** The kubelet's checkpoint file name; never deleted by a restart. */
    public static final String CHECKPOINT = "kubelet_internal_checkpoint";

    public static final String SUPPORTED_VERSION = "v1beta1";

    /**
     * One accepted registration. {@code receivedNanos} is {@link System#nanoTime()} when it
     * arrived.
     */
    public record Registration(RegisterRequest request, long receivedNanos) {
        public String resourceName() {
            return request.getResourceName();
        }
    }

    private final Path dir;
    private final EventLoopGroup group;

    /** Register blocks while it dials the plugin back, so it must not run on the event loop. */
    private final ExecutorService registerExecutor =
            Executors.newCachedThreadPool(
                    Thread.ofPlatform()
                            .name("kubelet-emulator-register-", 0)
                            .daemon(true)
                            .factory());

    private final Map<String, Endpoint> endpoints = new HashMap<>();
    private final List<Registration> registrations = new ArrayList<>();
    private Server server;
    private boolean closed;

    private KubeletEmulator(Path dir) {
        this.dir = dir;
        this.group = UnixSockets.eventLoops("kubelet-emulator", 1);
    }

    /**
     * Starts serving Registration on {@code <dir>/kubelet.sock} (the directory is created if
     * needed).
     */
    public static KubeletEmulator start(Path dir) {
        KubeletEmulator k = new KubeletEmulator(dir);
        k.listen();
        return k;
    }

    public Path directory() {
        return dir;
    }

    public Path socket() {
        return dir.resolve("kubelet.sock");
    }

    private synchronized void listen() {
        try {
            server =
                    UnixSockets.serve(socket(), group, registerExecutor, new RegistrationService());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve " + socket(), e);
        }
    }

    // ---- what the kubelet sees ----

    /** Every accepted registration, oldest first. */
    public synchronized List<Registration> registrations() {
        return List.copyOf(registrations);
    }

    /** The resources with a registered endpoint. */
    public synchronized List<String> resources() {
        return endpoints.keySet().stream().sorted().toList();
    }

    /** The options the plugin of {@code resource} answered at registration. */
    public synchronized DevicePluginOptions options(String resource) {
        return endpoint(resource).options;
    }

    /** The latest device list of {@code resource}; empty before the first ListAndWatch message. */
    public synchronized List<Device> devices(String resource) {
        Endpoint e = endpoints.get(resource);
        return e == null ? List.of() : e.devices;
    }

    /** Every list received on the current ListAndWatch stream of {@code resource}, oldest first. */
    public synchronized List<List<Device>> updates(String resource) {
        Endpoint e = endpoints.get(resource);
        return e == null ? List.of() : List.copyOf(e.updates);
    }

    /** Node capacity of {@code resource}: all advertised devices. */
    public synchronized int capacity(String resource) {
        return devices(resource).size();
    }

    /**
     * Node allocatable of {@code resource}: the healthy devices, 0 while the plugin is
     * disconnected.
     */
    public synchronized int allocatable(String resource) {
        Endpoint e = endpoints.get(resource);
        if (e == null || !e.connected) {
            return 0;
        }
        return (int) e.devices.stream().filter(d -> "Healthy".equals(d.getHealth())).count();
    }

    /** Whether the ListAndWatch stream of {@code resource} is open. */
    public synchronized boolean connected(String resource) {
        Endpoint e = endpoints.get(resource);
        return e != null && e.connected;
    }

    /**
     * Waits until {@code resource} has been registered at least once, and returns the first
     * registration.
     */
    public synchronized Registration awaitRegistration(String resource, Duration timeout)
            throws InterruptedException {
        return awaitRegistration(resource, null, timeout);
    }

    /**
     * Waits until a registration for {@code resource} arrives after {@code sinceNanos} (a
     * System.nanoTime()).
     */
    public synchronized Registration awaitRegistration(
            String resource, long sinceNanos, Duration timeout) throws InterruptedException {
        return awaitRegistration(resource, Long.valueOf(sinceNanos), timeout);
    }

    private Registration awaitRegistration(String resource, Long sinceNanos, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Registration r : registrations) {
                if (r.resourceName().equals(resource)
                        && (sinceNanos == null || r.receivedNanos() - sinceNanos >= 0)) {
                    return r;
                }
            }
            waitUntil(deadline, "a registration of " + resource);
        }
    }

    /**
     * Waits until the latest device list of {@code resource} satisfies {@code condition}, and
     * returns it.
     */
    public synchronized List<Device> awaitDevices(
            String resource, Predicate<List<Device>> condition, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Endpoint e = endpoints.get(resource);
            if (e != null && e.connected && !e.updates.isEmpty() && condition.test(e.devices)) {
                return e.devices;
            }
            waitUntil(
                    deadline,
                    "a device list of "
                            + resource
                            + " that matches; latest: "
                            + (e == null
                                    ? "none"
                                    : e.devices.stream()
                                            .map(d -> d.getID() + "=" + d.getHealth())
                                            .toList()));
        }
    }

    private void waitUntil(long deadline, String what) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new IllegalStateException("kubelet emulator: timed out waiting for " + what);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
    }

    // ---- what the kubelet does at pod admission ----

    /**
     * Calls GetPreferredAllocation for one container.
     *
     * @throws io.grpc.StatusRuntimeException as the plugin answered
     */
    public List<String> preferredAllocation(
            String resource, List<String> available, List<String> mustInclude, int size) {
        var req =
                PreferredAllocationRequest.newBuilder()
                        .addContainerRequests(
                                ContainerPreferredAllocationRequest.newBuilder()
                                        .addAllAvailableDeviceIDs(available)
                                        .addAllMustIncludeDeviceIDs(mustInclude)
                                        .setAllocationSize(size))
                        .build();
        return stub(resource)
                .getPreferredAllocation(req)
                .getContainerResponses(0)
                .getDeviceIDsList();
    }

    /**
     * Calls Allocate with one container request, as the kubelet does.
     *
     * @throws io.grpc.StatusRuntimeException as the plugin answered (e.g. INVALID_ARGUMENT)
     */
    public AllocateResponse allocate(String resource, List<String> deviceIds) {
        var req =
                AllocateRequest.newBuilder()
                        .addContainerRequests(
                                ContainerAllocateRequest.newBuilder().addAllDevicesIds(deviceIds))
                        .build();
        return stub(resource).allocate(req);
    }

    /** A blocking stub on the plugin endpoint of {@code resource} (10 s deadline per call). */
    public DevicePluginGrpc.DevicePluginBlockingStub stub(String resource) {
        ManagedChannel ch;
        synchronized (this) {
            ch = endpoint(resource).channel;
        }
        return DevicePluginGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    // ---- lifecycle ----

    /**
     * Simulates a kubelet restart: stops listening, drops every plugin connection, deletes the
     * sockets in the directory (not the checkpoint), then listens on a new {@code kubelet.sock}.
     */
    public void restart() {
        synchronized (this) {
            shutdownServer();
            endpoints.values().forEach(Endpoint::disconnect);
            endpoints.clear();
            notifyAll();
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals(CHECKPOINT) && UnixSockets.isSocket(f)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + dir, e);
        }
        listen();
    }

    /** Stops listening, removes kubelet.sock and drops every plugin connection. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            shutdownServer();
            endpoints.values().forEach(Endpoint::disconnect);
            endpoints.clear();
            notifyAll();
        }
        try {
            Files.deleteIfExists(socket());
        } catch (IOException ignored) {
            // the test's temp dir may be gone already
        }
        registerExecutor.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private void shutdownServer() {
        if (server != null) {
            server.shutdownNow();
            try {
                server.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server = null;
        }
    }

    private Endpoint endpoint(String resource) {
        Endpoint e = endpoints.get(resource);
        if (e == null) {
            throw new IllegalStateException(
                    "kubelet emulator: no device plugin registered for " + resource);
        }
        return e;
    }

    /** Register: validate, dial, GetDevicePluginOptions, then ListAndWatch in the background. */
    private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
        @Override
        public void register(RegisterRequest req, StreamObserver<Empty> out) {
            long received = System.nanoTime();
            if (!SUPPORTED_VERSION.equals(req.getVersion())) {
                out.onError(
                        Status.INVALID_ARGUMENT
                                .withDescription(
                                        "requested API version \""
                                                + req.getVersion()
                                                + "\" is not supported by kubelet. Supported version is \""
                                                + SUPPORTED_VERSION
                                                + "\"")
                                .asRuntimeException());
                return;
            }
            if (!extendedResourceName(req.getResourceName())) {
                out.onError(
                        Status.INVALID_ARGUMENT
                                .withDescription(
                                        "the ResourceName \""
                                                + req.getResourceName()
                                                + "\" is invalid")
                                .asRuntimeException());
                return;
            }
            Path socket = dir.resolve(req.getEndpoint());
            ManagedChannel ch = UnixSockets.dial(socket, group);
            DevicePluginOptions options;
            try {
                options =
                        DevicePluginGrpc.newBlockingStub(ch)
                                .withWaitForReady()
                                .withDeadlineAfter(10, TimeUnit.SECONDS)
                                .getDevicePluginOptions(Empty.getDefaultInstance());
            } catch (RuntimeException e) {
                ch.shutdownNow();
                out.onError(
                        Status.UNKNOWN
                                .withDescription("failed to dial device plugin: " + e.getMessage())
                                .asRuntimeException());
                return;
            }
            Endpoint endpoint = new Endpoint(req.getResourceName(), ch, options);
            synchronized (KubeletEmulator.this) {
                if (closed) {
                    ch.shutdownNow();
                    out.onError(
                            Status.UNAVAILABLE
                                    .withDescription("kubelet is stopping")
                                    .asRuntimeException());
                    return;
                }
                Endpoint old = endpoints.put(req.getResourceName(), endpoint);
                if (old != null) {
                    // the kubelet keeps a resource's known devices across a re-registration until
                    // the new stream's first list: pods admitted meanwhile are not refused
                    endpoint.devices = old.devices;
                    old.disconnect();
                }
                registrations.add(new Registration(req, received));
                KubeletEmulator.this.notifyAll();
            }
            // not in the Register call's context, which is cancelled when Register returns
            Context.ROOT.run(endpoint::watch);
            out.onNext(Empty.getDefaultInstance());
            out.onCompleted();
        }
    }

    /**
     * Domain-qualified, and not in the kubernetes.io namespace, like the kubelet's
     * IsExtendedResourceName.
     */
    static boolean extendedResourceName(String name) {
        int slash = name.indexOf('/');
        if (slash <= 0 || slash == name.length() - 1) {
            return false;
        }
        String domain = name.substring(0, slash);
        return !domain.equals("kubernetes.io")
                && !domain.endsWith(".kubernetes.io")
                && domain.contains(".");
    }

    /** One registered plugin endpoint and its ListAndWatch stream. */
    private final class Endpoint {
        final String resource;
        final ManagedChannel channel;
        final DevicePluginOptions options;
        List<Device> devices = List.of();
        final List<List<Device>> updates = new ArrayList<>();
        boolean connected = true;

        Endpoint(String resource, ManagedChannel channel, DevicePluginOptions options) {
            this.resource = resource;
            this.channel = channel;
            this.options = options;
        }

        void watch() {
            DevicePluginGrpc.newStub(channel)
                    .listAndWatch(
                            Empty.getDefaultInstance(),
                            new StreamObserver<ListAndWatchResponse>() {
                                @Override
                                public void onNext(ListAndWatchResponse r) {
                                    synchronized (KubeletEmulator.this) {
                                        devices = List.copyOf(r.getDevicesList());
                                        updates.add(devices);
                                        KubeletEmulator.this.notifyAll();
                                    }
                                }

                                @Override
                                public void onError(Throwable t) {
                                    ended();
                                }

                                @Override
                                public void onCompleted() {
                                    ended();
                                }
                            });
        }

        private void ended() {
            synchronized (KubeletEmulator.this) {
                connected = false;
                KubeletEmulator.this.notifyAll();
            }
        }

        void disconnect() {
            connected = false;
            channel.shutdownNow();
        }
    }
}
