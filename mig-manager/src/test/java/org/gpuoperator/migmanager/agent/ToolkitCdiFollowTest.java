package org.gpuoperator.migmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.migmanager.reconcile.LayoutPublisher;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolkitCdiFollowTest {

    private static final Map<Integer, Layout> LAYOUT =
            Map.of(0, new Layout(true, List.of("3g.20gb", "1g.5gb")), 1, Layout.DISABLED);

    @TempDir Path dir;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final EventLog log =
            new EventLog("mig-manager", new PrintStream(out, true, StandardCharsets.UTF_8));

    @Test
    void theFingerprintIsShortAndStable() {
        assertThat(LayoutPublisher.fingerprint(LAYOUT)).isEqualTo("0=3g.20gb+1g.5gb;1=off");
        assertThat(LayoutPublisher.fingerprint(Map.of(2, new Layout(true, List.of()))))
                .isEqualTo("2=on");
    }

    @Test
    void withCdiItWaitsUntilTheToolkitHasRewrittenTheSpecForTheLayout() throws Exception {
        ReadinessFiles files = new ReadinessFiles(dir);
        ToolkitCdiFollow follow =
                new ToolkitCdiFollow(files, true, Duration.ofSeconds(20), Clock.systemUTC(), log);

        CompletableFuture<Void> done =
                CompletableFuture.runAsync(
                        () -> {
                            try {
                                follow.publish(LAYOUT);
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        });
        Thread.sleep(500);
        assertThat(done).isNotDone();
        assertThat(Files.readString(dir.resolve("mig-layout")))
                .isEqualTo("layout=0=3g.20gb+1g.5gb;1=off\n");

        // what the toolkit does once the spec is rewritten
        files.markReady("mig-layout-cdi", files.read("mig-layout").orElseThrow());
        done.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aToolkitThatNeverAnswersIsLoggedAndNotWaitedForForever() throws Exception {
        ToolkitCdiFollow follow =
                new ToolkitCdiFollow(
                        new ReadinessFiles(dir),
                        true,
                        Duration.ofMillis(300),
                        Clock.systemUTC(),
                        log);

        follow.publish(LAYOUT);

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("event=cdi-spec-behind");
    }

    @Test
    void withoutCdiItOnlyPublishesAndAnUnchangedLayoutIsNotRewritten() throws Exception {
        ToolkitCdiFollow follow =
                new ToolkitCdiFollow(
                        new ReadinessFiles(dir),
                        false,
                        Duration.ofSeconds(20),
                        Clock.systemUTC(),
                        log);
        follow.publish(LAYOUT);
        var written = Files.getLastModifiedTime(dir.resolve("mig-layout"));
        Thread.sleep(20);

        follow.publish(LAYOUT);

        assertThat(Files.getLastModifiedTime(dir.resolve("mig-layout"))).isEqualTo(written);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .containsOnlyOnce("event=mig-layout-published");
    }
}
