package org.gpuoperator.controller;

import java.util.EnumMap;
import java.util.Map;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/** Policy settings for tests: every operand enabled, images under ghcr.io/gpu-operator. */
public final class TestPolicies {
    private TestPolicies() {}

    public static PolicySettings allEnabled() {
        Map<Operand, OperandSettings> operands = new EnumMap<>(Operand.class);
        for (Operand o : Operand.values()) {
            operands.put(o, OperandSettings.enabled("ghcr.io/gpu-operator", o.module(), "0.1.0"));
        }
        return PolicySettings.builder(DaemonSetSettings.defaults(), operands)
                .runtimeClass("nvidia")
                .kubeletRootDir("/var/lib/kubelet")
                .toolkitInstallDir("/usr/local/nvidia")
                .migStrategy("single")
                .simulation(new PolicySettings.Simulation(true, "t4-x1", null))
                .build();
    }
}
