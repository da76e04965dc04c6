package org.gpuoperator.deviceplugin.mps;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.gpuoperator.deviceplugin.health.DeviceHealth;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.node.agent.EventLog;

/**
 * The device plugin's wait for the MPS control daemon: the replicas of an MPS resource are
 * advertised Unhealthy (allocatable 0) until the daemon has written {@code .started} and answers
 * upstream's health command, and again whenever it stops answering. Upstream's plugin instead
 * blocks its start, so its resources look ready before they are (its known issue).
 */
public final class MpsReadiness implements AutoCloseable {

    private static final Duration NOT_READY_POLL = Duration.ofSeconds(1);
    private static final Duration READY_POLL = Duration.ofSeconds(10);

    private final MpsControl control;
    private final DeviceHealth health;
    private final EventLog log;
    private volatile List<Watched> watched = List.of();
    private volatile boolean closed;
    private Thread loop;

    private record Watched(String resource, MpsPaths paths) {}

    public MpsReadiness(MpsControl control, DeviceHealth health, EventLog log) {
        this.control = control;
        this.health = health;
        this.log = log;
    }

    /**
     * Watches the MPS resources of {@code resources} from now on (checked once before this returns,
     * so a new resource is never offered healthy first); others are released.
     */
    public synchronized void watch(List<Resource> resources, String mpsRoot) {
        List<Watched> next =
                resources.stream()
                        .filter(r -> r.mps() != null)
                        .map(
                                r ->
                                        new Watched(
                                                r.name(),
                                                new MpsPaths(Path.of(mpsRoot), r.mps().resource())))
                        .toList();
        for (Watched w : watched) {
            if (next.stream().noneMatch(n -> n.resource().equals(w.resource()))) {
                health.hold(w.resource(), null);
            }
        }
        watched = next;
        checkAll();
        if (!next.isEmpty() && loop == null) {
            loop = Thread.ofVirtual().name("mps-readiness").start(this::run);
        }
    }

    private void run() {
        while (!closed) {
            boolean allReady = checkAll();
            try {
                Thread.sleep(allReady ? READY_POLL : NOT_READY_POLL);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One look at every watched daemon; true when all answer. */
    private synchronized boolean checkAll() {
        boolean all = true;
        for (Watched w : watched) {
            String why = check(w.paths());
            all &= why == null;
            if (health.hold(w.resource(), why)) {
                if (why == null) {
                    log.info(
                            "mps-daemon-ready", "resource", w.resource(), "pipe", w.paths().pipe());
                } else {
                    log.warn(
                            "mps-daemon-not-ready",
                            "resource",
                            w.resource(),
                            "reason",
                            why,
                            "action",
                            "replicas advertised Unhealthy until it answers");
                }
            }
        }
        return all;
    }

    /** Null when the daemon of {@code paths} is up, else why not. */
    String check(MpsPaths paths) {
        if (!Files.exists(paths.started())) {
            return "no MPS control daemon has started for "
                    + paths.resource()
                    + " ("
                    + paths.started()
                    + " is absent; is the nvidia-device-plugin-mps-control-daemon pod running on"
                    + " this node?)";
        }
        try {
            String reply = control.send(paths, MpsControl.HEALTH_COMMAND);
            return Objects.requireNonNull(reply).isEmpty()
                    ? paths.controlSocket() + ": empty reply to " + MpsControl.HEALTH_COMMAND
                    : null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = loop;
        if (t != null) {
            t.interrupt();
        }
    }
}
