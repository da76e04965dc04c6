package org.gpuoperator.controller.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.operand.Operand.VALIDATOR;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

/** The gate with the validator: no predecessor, and a disabled driver opens the toolkit's gate. */
class ValidatorGateTest {

    private static final String SIM = "gpuoperator.org/simulated-gpu";
    private static final Map<String, String> NEW_GPU_NODE = Map.of(SIM, "true");

    @Test
    void everyGpuNodeGetsTheValidatorLabelAtOnceBesideTheDriver() {
        NodePlan p =
                NodeGate.plan(
                        new NodeView("n1", NEW_GPU_NODE, Set.of()),
                        EnumSet.allOf(Operand.class),
                        SIM);
        assertThat(p.labelChanges())
                .containsEntry("nvidia.com/gpu.deploy.operator-validator", "true")
                .containsEntry(DRIVER.deployLabel(), "true")
                .doesNotContainKey(CONTAINER_TOOLKIT.deployLabel());
        assertThat(p.stuckAt()).isEqualTo(DRIVER);
    }

    @Test
    void withTheDriverDisabledTheToolkitGateOpensAtOnceAndItsPodWaitsOnTheNode() {
        Set<Operand> noDriver = EnumSet.complementOf(EnumSet.of(DRIVER));
        NodePlan p = NodeGate.plan(new NodeView("n1", NEW_GPU_NODE, Set.of()), noDriver, SIM);
        assertThat(p.labelChanges())
                .containsEntry(VALIDATOR.deployLabel(), "true")
                .containsEntry(CONTAINER_TOOLKIT.deployLabel(), "true")
                .doesNotContainKey(DRIVER.deployLabel())
                .doesNotContainKey(DEVICE_PLUGIN.deployLabel());
        assertThat(p.stuckAt()).isEqualTo(CONTAINER_TOOLKIT);
    }

    @Test
    void theValidatorIsTheLastStepANodeCanWaitAtAndNobodyWaitsForItsPod() {
        Set<Operand> all = EnumSet.allOf(Operand.class);
        Set<Operand> allButValidator = EnumSet.complementOf(EnumSet.of(VALIDATOR));
        Map<String, String> labelled = new java.util.HashMap<>(NEW_GPU_NODE);
        labelled.put("nvidia.com/gpu.present", "true");
        for (Operand o : all) {
            labelled.put(o.deployLabel(), "true");
        }
        NodePlan p = NodeGate.plan(new NodeView("n1", labelled, allButValidator), all, SIM);
        assertThat(p.hasChanges()).isFalse();
        assertThat(p.stuckAt()).isEqualTo(VALIDATOR);
        NodePlan done = NodeGate.plan(new NodeView("n1", labelled, all), all, SIM);
        assertThat(done.stuckAt()).isNull();
    }

    @Test
    void policyDeletionTakesTheValidatorLabelOffToo() {
        assertThat(NodeGate.cleanup(Map.of(VALIDATOR.deployLabel(), "true")))
                .containsKey(VALIDATOR.deployLabel());
    }
}
