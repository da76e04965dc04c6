package org.gpuoperator.deviceplugin.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.gpuoperator.deviceplugin.allocation.Allocations;
import org.gpuoperator.deviceplugin.allocation.InvalidRequestException;
import org.gpuoperator.deviceplugin.allocation.PreferredAllocation;
import org.gpuoperator.deviceplugin.health.DeviceHealth;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.NUMANode;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.TopologyInfo;
import org.gpuoperator.node.agent.EventLog;

/** The DevicePlugin gRPC service for one resource. */
public final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {

    public static final String HEALTHY = "Healthy";
    public static final String UNHEALTHY = "Unhealthy";

    /** No PreStartContainer; GetPreferredAllocation is available. */
    public static final DevicePluginOptions OPTIONS =
            DevicePluginOptions.newBuilder()
                    .setPreStartRequired(false)
                    .setGetPreferredAllocationAvailable(true)
                    .build();

    private final Resource resource;
    private final DeviceHealth health;
    private final Allocations allocations;
    private final PreferredAllocation preferred;
    private final EventLog log;
    private final Set<Watch> watches = new CopyOnWriteArraySet<>();

    public DevicePluginService(
            Resource resource,
            DeviceHealth health,
            Allocations allocations,
            PreferredAllocation preferred,
            EventLog log) {
        this.resource = resource;
        this.health = health;
        this.allocations = allocations;
        this.preferred = preferred;
        this.log = log;
    }

    public Resource resource() {
        return resource;
    }

    /** The full device list with the current health and each device's NUMA node. */
    public ListAndWatchResponse deviceList() {
        ListAndWatchResponse.Builder b = ListAndWatchResponse.newBuilder();
        for (PluginDevice d : resource.devices()) {
            Device.Builder dev =
                    Device.newBuilder()
                            .setID(d.id())
                            .setHealth(health.healthy(resource.name(), d) ? HEALTHY : UNHEALTHY);
            if (d.numaNode() >= 0) {
                dev.setTopology(
                        TopologyInfo.newBuilder()
                                .addNodes(NUMANode.newBuilder().setID(d.numaNode())));
            }
            b.addDevices(dev);
        }
        return b.build();
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
        out.onNext(OPTIONS);
        out.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
        Watch w = new Watch((ServerCallStreamObserver<ListAndWatchResponse>) out);
        watches.add(w);
        health.addListener(w);
        ((ServerCallStreamObserver<ListAndWatchResponse>) out)
                .setOnCancelHandler(() -> w.stop(false));
        log.info(
                "list-and-watch-opened",
                "resource",
                resource.name(),
                "devices",
                resource.devices().size());
        w.run();
    }

    @Override
    public void getPreferredAllocation(
            PreferredAllocationRequest request, StreamObserver<PreferredAllocationResponse> out) {
        PreferredAllocationResponse.Builder r = PreferredAllocationResponse.newBuilder();
        try {
            for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
                List<String> ids =
                        preferred.choose(
                                c.getAvailableDeviceIDsList(),
                                c.getMustIncludeDeviceIDsList(),
                                c.getAllocationSize());
                r.addContainerResponses(
                        ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
            }
        } catch (InvalidRequestException e) {
            out.onError(invalid(e));
            return;
        }
        out.onNext(r.build());
        out.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        AllocateResponse.Builder r = AllocateResponse.newBuilder();
        try {
            for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
                r.addContainerResponses(
                        allocations.allocate(
                                c.getDevicesIdsList(), d -> health.healthy(resource.name(), d)));
            }
        } catch (InvalidRequestException e) {
            log.warn("allocate-refused", "resource", resource.name(), "reason", e.getMessage());
            out.onError(invalid(e));
            return;
        }
        out.onNext(r.build());
        out.onCompleted();
    }

    @Override
    public void preStartContainer(
            PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        out.onNext(PreStartContainerResponse.getDefaultInstance());
        out.onCompleted();
    }

    /** Ends every open ListAndWatch stream (the plugin stops serving this resource). */
    public void close() {
        watches.forEach(w -> w.stop(true));
    }

    private static StatusRuntimeException invalid(InvalidRequestException e) {
        return Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
    }

    /**
     * One open ListAndWatch stream: sends the full list whenever it differs from the last one sent.
     */
    private final class Watch implements Runnable {
        private final ServerCallStreamObserver<ListAndWatchResponse> out;
        private ListAndWatchResponse last;
        private boolean done;

        Watch(ServerCallStreamObserver<ListAndWatchResponse> out) {
            this.out = out;
        }

        @Override
        public synchronized void run() {
            if (done) {
                return;
            }
            ListAndWatchResponse now = deviceList();
            if (now.equals(last)) {
                return;
            }
            try {
                out.onNext(now);
                last = now;
            } catch (RuntimeException cancelled) {
                log.info(
                        "list-and-watch-closed",
                        "resource",
                        resource.name(),
                        "reason",
                        cancelled.toString());
                stop(false);
            }
        }

        synchronized void stop(boolean complete) {
            if (done) {
                return;
            }
            done = true;
            health.removeListener(this);
            watches.remove(this);
            if (complete) {
                try {
                    out.onCompleted();
                } catch (RuntimeException alreadyClosed) {
                    // the kubelet went away first
                }
            }
        }
    }
}
