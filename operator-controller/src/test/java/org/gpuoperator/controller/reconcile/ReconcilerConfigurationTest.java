package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReconcilerConfigurationTest {

    /** Without events the safety pass would wait for one; JOSDK's default maximum is 10 hours. */
    @Test
    void aReconcileRunsAtLeastEveryFiveMinutes() {
        var max =
                ClusterPolicyReconciler.class
                        .getAnnotation(ControllerConfiguration.class)
                        .maxReconciliationInterval();
        assertThat(max.timeUnit().toMinutes(max.interval())).isEqualTo(5);
        assertThat(max.timeUnit()).isEqualTo(TimeUnit.MINUTES);
    }
}
