package org.gpuoperator.validator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.validator.cuda.MockCluster;
import org.junit.jupiter.api.Test;

/** The client is built on first use, once, and closed with the validator. */
class LazyClientTest {

    @Test
    void nothingIsBuiltUntilAStepNeedsTheApiThenOneClientServesEveryStep() {
        try (MockCluster cluster = new MockCluster()) {
            AtomicInteger builds = new AtomicInteger();
            KubernetesClient built;
            try (LazyClient client =
                    new LazyClient(
                            () -> {
                                builds.incrementAndGet();
                                return cluster.server.createClient();
                            })) {
                assertThat(builds).hasValue(0);
                built = client.get();
                assertThat(client.get()).isSameAs(built);
                assertThat(builds).hasValue(1);
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
    void aValidatorThatNeverCalledTheApiBuildsNoClientToClose() {
        AtomicInteger builds = new AtomicInteger();
        try (LazyClient client =
                new LazyClient(
                        () -> {
                            builds.incrementAndGet();
                            throw new AssertionError("not needed");
                        })) {
            assertThat(client).isNotNull();
        }
        assertThat(builds).hasValue(0);
    }
}
