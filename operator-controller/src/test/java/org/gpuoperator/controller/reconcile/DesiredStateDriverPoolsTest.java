package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.junit.jupiter.api.Test;

class DesiredStateDriverPoolsTest {

    private final DesiredState state =
            DesiredState.of(new OperandModels(Map.of()), TestPolicies.allEnabled(), "gpu-operator");

    @Test
    void thePoolsReplaceTheClusterPolicysDriverDaemonSetWhichIsDeleted() {
        DaemonSet pool =
                new DaemonSetBuilder()
                        .withNewMetadata()
                        .withName("nvidia-gpu-driver-ubuntu22.04-0123456789")
                        .withNamespace("gpu-operator")
                        .endMetadata()
                        .build();

        DesiredState withPools = state.withDriverPools(List.of(pool), "gpu-operator");

        List<String> driverObjects =
                withPools.enabled().get(Operand.DRIVER).stream()
                        .filter(DaemonSet.class::isInstance)
                        .map(o -> o.getMetadata().getName())
                        .toList();
        assertThat(driverObjects).containsExactly("nvidia-gpu-driver-ubuntu22.04-0123456789");
        assertThat(withPools.enabled().get(Operand.DRIVER))
                .extracting(HasMetadata::getKind)
                .contains("ServiceAccount");
        assertThat(withPools.toDelete())
                .contains(
                        new ObjectRef(
                                DaemonSet.class, "gpu-operator", Operand.DRIVER.daemonSetName()));
        assertThat(withPools.templateHashes())
                .as("the driver's hash is each pool's")
                .doesNotContainKey(Operand.DRIVER)
                .containsKey(Operand.DEVICE_PLUGIN);
        assertThat(state.templateHashes()).containsKey(Operand.DRIVER);
    }
}
