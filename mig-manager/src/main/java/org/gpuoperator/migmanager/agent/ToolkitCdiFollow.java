package org.gpuoperator.migmanager.agent;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.migmanager.reconcile.LayoutPublisher;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * {@link LayoutPublisher} through the readiness directory every agent shares: writes {@value
 * ReadinessFiles#MIG_LAYOUT} and, with CDI on, waits until the toolkit has rewritten the CDI spec
 * for that layout ({@value ReadinessFiles#MIG_LAYOUT_CDI} says the same). A toolkit that does not
 * answer within {@code wait} is logged, and the clients come back anyway: the toolkit's periodic
 * resync rewrites the spec later.
 */
public final class ToolkitCdiFollow implements LayoutPublisher {

    private static final Duration POLL = Duration.ofMillis(200);

    private final ReadinessFiles files;
    private final boolean cdi;
    private final Duration wait;
    private final Clock clock;
    private final EventLog log;

    public ToolkitCdiFollow(
            ReadinessFiles files, boolean cdi, Duration wait, Clock clock, EventLog log) {
        this.files = files;
        this.cdi = cdi;
        this.wait = wait;
        this.clock = clock;
        this.log = log;
    }

    @Override
    public void publish(Map<Integer, Layout> layouts) throws InterruptedException {
        Map<String, String> facts = Map.of("layout", LayoutPublisher.fingerprint(layouts));
        if (!files.read(ReadinessFiles.MIG_LAYOUT).equals(Optional.of(facts))) {
            files.markReady(ReadinessFiles.MIG_LAYOUT, facts);
            log.info("mig-layout-published", "file", files.file(ReadinessFiles.MIG_LAYOUT));
        }
        if (!cdi) {
            return;
        }
        Instant deadline = clock.instant().plus(wait);
        while (!files.read(ReadinessFiles.MIG_LAYOUT_CDI).equals(Optional.of(facts))) {
            if (clock.instant().isAfter(deadline)) {
                log.warn(
                        "cdi-spec-behind",
                        "waited",
                        wait.toSeconds() + "s",
                        "file",
                        files.file(ReadinessFiles.MIG_LAYOUT_CDI),
                        "action",
                        "resuming the clients; the toolkit's resync rewrites the spec");
                return;
            }
            Thread.sleep(POLL.toMillis());
        }
    }
}
