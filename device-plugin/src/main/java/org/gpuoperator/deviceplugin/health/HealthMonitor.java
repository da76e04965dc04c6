package org.gpuoperator.deviceplugin.health;

import java.time.Duration;
import java.util.Optional;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.HealthEvent;

/**
 * Reads the inventory's health stream on one thread and applies each event to {@link DeviceHealth}.
 */
public final class HealthMonitor implements AutoCloseable {

    private final GpuInventory.HealthWatch watch;
    private final DeviceHealth health;
    private final HealthPolicy policy;
    private final EventLog log;
    private final Thread thread;
    private volatile boolean running = true;

    private HealthMonitor(
            GpuInventory inventory, DeviceHealth health, HealthPolicy policy, EventLog log) {
        this.watch = inventory.watchHealth();
        this.health = health;
        this.policy = policy;
        this.log = log;
        this.thread = Thread.ofPlatform().name("health-monitor").daemon(true).unstarted(this::loop);
    }

    /** Starts watching; the first events are the faults already present. */
    public static HealthMonitor start(
            GpuInventory inventory, DeviceHealth health, HealthPolicy policy, EventLog log) {
        HealthMonitor m = new HealthMonitor(inventory, health, policy, log);
        m.thread.start();
        return m;
    }

    private void loop() {
        while (running) {
            try {
                Optional<HealthEvent> e = watch.next(Duration.ofMillis(500));
                e.ifPresent(this::handle);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("health-watch-failed", "error", e.getMessage());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void handle(HealthEvent e) {
        DeviceHealth.Change c = health.apply(e, policy);
        if (c == null) {
            log.info(
                    "health-event-ignored",
                    "gpu",
                    e.gpuIndex(),
                    "uuid",
                    e.uuid(),
                    "kind",
                    e.kind(),
                    "xid",
                    e.xid());
        } else if (c.healthy()) {
            log.info("device-healthy", "gpu", c.gpuIndex(), "uuid", c.uuid());
        } else {
            log.warn(
                    "device-unhealthy",
                    "gpu",
                    c.gpuIndex(),
                    "uuid",
                    c.uuid(),
                    "reason",
                    c.reason());
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        watch.close();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
