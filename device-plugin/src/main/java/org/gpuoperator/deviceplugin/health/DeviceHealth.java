package org.gpuoperator.deviceplugin.health;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.node.inventory.HealthEvent;

/**
 * The current health of the node's devices. A fault is kept per physical GPU (then every MIG device
 * and every replica on it is unhealthy) or per MIG device when the event names one. Unlike
 * upstream, a device becomes Healthy again when its fault clears. Listeners hear about every
 * change.
 */
public final class DeviceHealth {

    /** What changed, for logs. */
    public record Change(int gpuIndex, String uuid, boolean healthy, String reason) {}

    private final Map<Integer, String> faultyGpus = new ConcurrentHashMap<>();
    private final Map<String, MigFault> faultyMigs = new ConcurrentHashMap<>();

    private record MigFault(int gpuIndex, String reason) {}

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Resources whose every device is held unhealthy, with why (an MPS daemon not answering). */
    private final Map<String, String> heldResources = new ConcurrentHashMap<>();

    public boolean healthy(PluginDevice d) {
        return !faultyGpus.containsKey(d.gpuIndex())
                && !(d.mig() && faultyMigs.containsKey(d.uuid()));
    }

    /** Why {@code d} is unhealthy, or null when it is healthy. */
    public String reason(PluginDevice d) {
        String r = faultyGpus.get(d.gpuIndex());
        MigFault m = d.mig() ? faultyMigs.get(d.uuid()) : null;
        return r != null ? r : m != null ? m.reason() : null;
    }

    /** Healthy, and its resource not held. */
    public boolean healthy(String resource, PluginDevice d) {
        return !heldResources.containsKey(resource) && healthy(d);
    }

    /** Why {@code d} of {@code resource} is unhealthy, or null when it is healthy. */
    public String reason(String resource, PluginDevice d) {
        String held = heldResources.get(resource);
        return held != null ? held : reason(d);
    }

    /**
     * Holds every device of {@code resource} unhealthy for {@code reason}, or releases them when
     * {@code reason} is null; listeners hear of a change.
     *
     * @return whether anything changed
     */
    public boolean hold(String resource, String reason) {
        String before =
                reason == null
                        ? heldResources.remove(resource)
                        : heldResources.put(resource, reason);
        boolean changed = reason == null ? before != null : before == null;
        if (changed) {
            listeners.forEach(Runnable::run);
        }
        return changed;
    }

    public void addListener(Runnable onChange) {
        listeners.add(onChange);
    }

    public void removeListener(Runnable onChange) {
        listeners.remove(onChange);
    }

    /**
     * Applies one health event under {@code policy}.
     *
     * @return the change, or null when the event changes nothing (an ignored XID, a repeated fault)
     */
    public Change apply(HealthEvent e, HealthPolicy policy) {
        if (!policy.enabled()) {
            return null;
        }
        boolean migScoped = e.uuid() != null && e.uuid().startsWith("MIG-");
        Change change =
                switch (e.kind()) {
                    case XID ->
                            policy.critical(e.xid()) ? fault(e, migScoped, "xid=" + e.xid()) : null;
                    case GPU_LOST -> fault(e, migScoped, "gpu-lost");
                    case RECOVERED -> recover(e, migScoped);
                };
        if (change != null) {
            listeners.forEach(Runnable::run);
        }
        return change;
    }

    private Change fault(HealthEvent e, boolean migScoped, String reason) {
        String before;
        if (migScoped) {
            MigFault old = faultyMigs.put(e.uuid(), new MigFault(e.gpuIndex(), reason));
            before = old == null ? null : old.reason();
        } else {
            before = faultyGpus.put(e.gpuIndex(), reason);
        }
        return reason.equals(before) ? null : new Change(e.gpuIndex(), e.uuid(), false, reason);
    }

    private Change recover(HealthEvent e, boolean migScoped) {
        boolean changed;
        if (migScoped) {
            changed = faultyMigs.remove(e.uuid()) != null;
        } else {
            changed = faultyGpus.remove(e.gpuIndex()) != null;
            // a whole GPU recovered: the faults of its MIG devices cleared with it
            changed |= faultyMigs.values().removeIf(m -> m.gpuIndex() == e.gpuIndex());
        }
        return changed ? new Change(e.gpuIndex(), e.uuid(), true, "recovered") : null;
    }
}
