package org.gpuoperator.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.validator.cuda.MockCluster;
import org.junit.jupiter.api.Test;

/** The client is built from the start on another thread, once, and closed with the validator. */
class BackgroundClientTest {

    @Test
    void theBuildStartsWithoutBeingAskedAndOneClientServesEveryStep() throws Exception {
        try (MockCluster cluster = new MockCluster()) {
            AtomicInteger builds = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            KubernetesClient built;
            try (BackgroundClient client =
                    new BackgroundClient(
                            () -> {
                                builds.incrementAndGet();
                                started.countDown();
                                await(release);
                                return cluster.server.createClient();
                            })) {
                assertThat(started.await(10, TimeUnit.SECONDS))
                        .as("built before any step asks")
                        .isTrue();
                release.countDown();
                built = client.get();
                assertThat(client.get()).isSameAs(built);
                assertThat(built.nodes().list().getItems()).isEmpty();
                client.close();
                assertThatThrownBy(client::get)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("stopping");
            }
            assertThat(builds).hasValue(1);
        }
    }

    @Test
    void aFailedBuildFailsTheStepThatAskedAndTheNextAskBuildsAgain() {
        try (MockCluster cluster = new MockCluster()) {
            AtomicInteger builds = new AtomicInteger();
            try (BackgroundClient client =
                    new BackgroundClient(
                            () -> {
                                if (builds.incrementAndGet() == 1) {
                                    throw new KubernetesClientException("no service account token");
                                }
                                return cluster.server.createClient();
                            })) {
                assertThatThrownBy(client::get)
                        .isInstanceOf(KubernetesClientException.class)
                        .hasMessageContaining("no service account token");
                KubernetesClient built = client.get();
                assertThat(client.get()).isSameAs(built);
                assertThat(builds).hasValue(2);
            }
        }
    }

    @Test
    void closingWhileTheClientIsBuiltClosesItOnceBuilt() throws Exception {
        try (MockCluster cluster = new MockCluster()) {
            CountDownLatch release = new CountDownLatch(1);
            KubernetesClient[] built = new KubernetesClient[1];
            BackgroundClient client =
                    new BackgroundClient(
                            () -> {
                                await(release);
                                built[0] = cluster.server.createClient();
                                return built[0];
                            });
            Thread closer = Thread.ofPlatform().start(client::close);
            Thread.sleep(50); // the close waits for the build
            assertThat(closer.isAlive()).isTrue();
            release.countDown();
            closer.join(10_000);
            assertThat(closer.isAlive()).isFalse();
            assertThatThrownBy(() -> built[0].nodes().list())
                    .as("the client built for nobody is closed")
                    .isInstanceOf(Exception.class);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
