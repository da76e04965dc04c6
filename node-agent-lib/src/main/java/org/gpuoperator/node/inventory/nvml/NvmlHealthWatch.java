package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.HealthEvent;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;

/**
 * Health events from NVML's event set API: XID critical errors from {@code nvmlEventSetWait_v2},
 * and lost GPUs (a wait that returns {@code NVML_ERROR_GPU_IS_LOST}, after which each GPU is
 * probed). A lost GPU that answers again is reported as recovered. Like the device plugin, only XID
 * critical errors are registered; which XIDs matter is the consumer's policy.
 */
final class NvmlHealthWatch implements GpuInventory.HealthWatch {

    /**
     * Longest single wait in native code, so {@link #close} from another thread takes effect soon.
     */
    private static final int WAIT_SLICE_MS = 250;

    private final NvmlGpuInventory inventory;
    private final NvmlLibrary nvml;
    private final MemorySegment[] handles;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment set;
    private final MemorySegment data;
    private final MemorySegment probe;
    private final Deque<HealthEvent> pending = new ArrayDeque<>();
    private final BitSet lost = new BitSet();
    private final Object lock = new Object();
    private boolean waiting;
    private boolean closed;
    private boolean freed;

    NvmlHealthWatch(NvmlGpuInventory inventory, NvmlLibrary nvml, MemorySegment[] handles) {
        this.inventory = inventory;
        this.nvml = nvml;
        this.handles = handles;
        MemorySegment out = arena.allocate(ADDRESS);
        int rc = nvml.call(Fn.nvmlEventSetCreate, out);
        if (rc != NvmlReturn.SUCCESS.code()) {
            arena.close();
            throw nvml.exception(Fn.nvmlEventSetCreate, rc, "");
        }
        this.set = out.get(ADDRESS, 0);
        this.data = arena.allocate(NvmlLibrary.EVENT_DATA);
        this.probe = arena.allocate(NvmlLibrary.DEVICE_STRING_BUFFER);
        try {
            MemorySegment supported = arena.allocate(JAVA_LONG);
            for (int i = 0; i < handles.length; i++) {
                rc = nvml.call(Fn.nvmlDeviceGetSupportedEventTypes, handles[i], supported);
                if (rc == NvmlReturn.SUCCESS.code()
                        && (supported.get(JAVA_LONG, 0) & NvmlLibrary.EVENT_TYPE_XID_CRITICAL_ERROR)
                                == 0) {
                    continue; // this GPU cannot report XIDs (very old boards)
                }
                rc =
                        nvml.call(
                                Fn.nvmlDeviceRegisterEvents,
                                handles[i],
                                NvmlLibrary.EVENT_TYPE_XID_CRITICAL_ERROR,
                                set);
                if (rc != NvmlReturn.SUCCESS.code() && !NvmlReturn.meansUnavailable(rc)) {
                    throw nvml.exception(Fn.nvmlDeviceRegisterEvents, rc, "for GPU " + i);
                }
            }
        } catch (RuntimeException e) {
            free();
            throw e;
        }
    }

    @Override
    public Optional<HealthEvent> next(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            synchronized (lock) {
                if (!pending.isEmpty()) {
                    return Optional.of(pending.poll());
                }
                if (closed) {
                    free();
                    return Optional.empty();
                }
                waiting = true;
            }
            int rc;
            try {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                recheckLost();
                long leftMs = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                rc =
                        hasPending()
                                ? NvmlReturn.ERROR_TIMEOUT.code()
                                : nvml.call(
                                        Fn.nvmlEventSetWait_v2,
                                        set,
                                        data,
                                        (int) Math.min(WAIT_SLICE_MS, leftMs));
                if (rc == NvmlReturn.SUCCESS.code()) {
                    onEvent();
                } else if (rc == NvmlReturn.ERROR_GPU_IS_LOST.code()) {
                    findLostGpus();
                } else if (rc != NvmlReturn.ERROR_TIMEOUT.code()) {
                    throw nvml.exception(Fn.nvmlEventSetWait_v2, rc, "");
                }
            } finally {
                finishWait();
            }
            if (!hasPending() && System.nanoTime() - deadline >= 0) {
                return Optional.empty();
            }
        }
    }

    private boolean hasPending() {
        synchronized (lock) {
            return !pending.isEmpty();
        }
    }

    private void finishWait() {
        synchronized (lock) {
            waiting = false;
            lock.notifyAll();
            if (closed) {
                free();
            }
        }
    }

    private void onEvent() {
        if ((data.get(JAVA_LONG, NvmlLibrary.EVENT_TYPE)
                        & NvmlLibrary.EVENT_TYPE_XID_CRITICAL_ERROR)
                == 0) {
            return;
        }
        MemorySegment device = data.get(ADDRESS, NvmlLibrary.EVENT_DEVICE);
        int index = indexOf(device);
        if (index < 0) {
            return; // not one of the GPUs this inventory knows
        }
        long xid = data.get(JAVA_LONG, NvmlLibrary.EVENT_DATA_VALUE);
        int gi = data.get(JAVA_INT, NvmlLibrary.EVENT_GPU_INSTANCE);
        int ci = data.get(JAVA_INT, NvmlLibrary.EVENT_COMPUTE_INSTANCE);
        inventory.recordXid(index, xid);
        add(
                new HealthEvent(
                        index,
                        uuidFor(index, gi, ci),
                        HealthEvent.Kind.XID,
                        xid,
                        System.currentTimeMillis()));
    }

    /** The MIG device's UUID when the error is scoped to one GPU instance, else the GPU's. */
    private String uuidFor(int index, int gi, int ci) {
        Gpu gpu = inventory.gpus().get(index);
        if (gi != NvmlLibrary.INSTANCE_NONE) {
            for (Gpu.MigDevice m : gpu.mig().devices()) {
                if (m.gpuInstanceId() == gi
                        && (ci == NvmlLibrary.INSTANCE_NONE || m.computeInstanceId() == ci)) {
                    return m.uuid();
                }
            }
        }
        return gpu.uuid();
    }

    private int indexOf(MemorySegment device) {
        for (int i = 0; i < handles.length; i++) {
            if (handles[i].address() == device.address()) {
                return i;
            }
        }
        return -1;
    }

    /** After NVML said a GPU is lost: ask each GPU and report those that no longer answer. */
    private void findLostGpus() {
        for (int i = 0; i < handles.length; i++) {
            if (!lost.get(i) && answersLost(i)) {
                lost.set(i);
                add(
                        new HealthEvent(
                                i,
                                inventory.gpus().get(i).uuid(),
                                HealthEvent.Kind.GPU_LOST,
                                0,
                                System.currentTimeMillis()));
            }
        }
    }

    /** A lost GPU that answers again has recovered (e.g. after a GPU reset). */
    private void recheckLost() {
        for (int i = lost.nextSetBit(0); i >= 0; i = lost.nextSetBit(i + 1)) {
            if (!answersLost(i)) {
                lost.clear(i);
                add(
                        new HealthEvent(
                                i,
                                inventory.gpus().get(i).uuid(),
                                HealthEvent.Kind.RECOVERED,
                                0,
                                System.currentTimeMillis()));
            }
        }
    }

    private boolean answersLost(int i) {
        return nvml.call(Fn.nvmlDeviceGetUUID, handles[i], probe, NvmlLibrary.DEVICE_STRING_BUFFER)
                == NvmlReturn.ERROR_GPU_IS_LOST.code();
    }

    private void add(HealthEvent e) {
        synchronized (lock) {
            pending.add(e);
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (!waiting) {
                free(); // else the waiting thread frees the set when its wait slice ends
            }
        }
    }

    /**
     * Closes and waits (bounded) until no thread is inside a native wait, so NVML can be shut down
     * safely.
     */
    void closeAndAwait() {
        synchronized (lock) {
            closed = true;
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (waiting && System.nanoTime() - until < 0) {
                try {
                    lock.wait(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            if (!waiting) {
                free();
            }
        }
    }

    private void free() {
        synchronized (lock) {
            if (freed) {
                return;
            }
            freed = true;
            inventory.forget(this);
            if (!inventory.isShutDown()) {
                nvml.call(Fn.nvmlEventSetFree, set);
            }
            arena.close();
        }
    }
}
