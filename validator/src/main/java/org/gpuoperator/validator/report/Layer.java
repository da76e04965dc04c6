package org.gpuoperator.validator.report;

import org.gpuoperator.node.agent.ReadinessFiles;

/** The four layers in the order they are validated, with their readiness file and metric. */
public enum Layer {
    DRIVER("driver", ReadinessFiles.DRIVER, "driver-agent"),
    TOOLKIT("toolkit", ReadinessFiles.TOOLKIT, "toolkit-agent"),
    CUDA("cuda", "cuda-ready", null),
    PLUGIN("plugin", ReadinessFiles.PLUGIN, "device-plugin");

    private final String key;
    private final String readinessFile;
    private final String operand;

    Layer(String key, String readinessFile, String operand) {
        this.key = key;
        this.readinessFile = readinessFile;
        this.operand = operand;
    }

    /** {@code driver}, {@code toolkit}, {@code cuda}, {@code plugin}. */
    public String key() {
        return key;
    }

    public String readinessFile() {
        return readinessFile;
    }

    /**
     * The operand that writes this layer's file when it is managed; null for cuda (always ours).
     */
    public String operand() {
        return operand;
    }

    public String metricName() {
        return "gpu_operator_node_" + key + "_ready";
    }
}
