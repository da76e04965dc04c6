package org.gpuoperator.controller.nvidiadriver;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;

/**
 * The fields of an NVIDIADriver that are set but not acted on here (pure), each with why, for that
 * NVIDIADriver's own {@code status.warnings}: an admin who sets {@code rdma} or a probe learns that
 * it does nothing instead of finding out on a node. A field set to its off value ({@code false}, or
 * a section with {@code enabled: false}) changes nothing and is not warned about.
 */
public final class NvidiaDriverFields {

    /** Field → why it is not acted on. */
    static final Map<String, String> NOT_ACTED_ON = notActedOn();

    private NvidiaDriverFields() {}

    private static Map<String, String> notActedOn() {
        Map<String, String> m = new LinkedHashMap<>();
        String driverAgent = "the driver agent does not implement it yet";
        m.put("usePrecompiled", "precompiled driver images are not built here; " + driverAgent);
        m.put("startupProbe", "the driver pod's probes are the agent's own");
        m.put("livenessProbe", "the driver pod's probes are the agent's own");
        m.put("readinessProbe", "the driver pod's probes are the agent's own");
        m.put("rdma", "GPUDirect RDMA (nvidia-peermem): " + driverAgent);
        m.put("gds", "GPUDirect Storage: " + driverAgent);
        m.put("gdrcopy", "GDRCopy: " + driverAgent);
        m.put("manager", "the k8s-driver-manager's settings: its steps are the upgrade's here");
        m.put("repoConfig", "package repository configuration: " + driverAgent);
        m.put("certConfig", "custom certificates: " + driverAgent);
        m.put("licensingConfig", "vGPU licensing: vGPU drivers are refused");
        m.put("virtualTopologyConfig", "vGPU topology: vGPU drivers are refused");
        m.put("kernelModuleConfig", "kernel module parameters: " + driverAgent);
        m.put("secretEnv", "environment from a Secret: not rendered yet");
        m.put("nodeAffinity", "not rendered yet: nodeSelector selects the nodes");
        m.put("podSecurityContext", "not rendered yet: the driver pod's security context is fixed");
        m.put("hostNetwork", "not rendered yet");
        return Map.copyOf(m);
    }

    /** The warnings of {@code spec}, in the spec's field order. */
    public static List<PolicyWarning> warnings(NVIDIADriverSpec spec) {
        if (spec == null) {
            return List.of();
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = Serialization.jsonMapper().convertValue(spec, Map.class);
        List<PolicyWarning> out = new ArrayList<>();
        fields.forEach(
                (name, value) -> {
                    String why = NOT_ACTED_ON.get(name);
                    if (why != null && !off(value)) {
                        out.add(new PolicyWarning("spec." + name, "not acted on: " + why));
                    }
                });
        return out;
    }

    private static boolean off(Object value) {
        return value == null
                || Boolean.FALSE.equals(value)
                || (value instanceof Map<?, ?> m
                        && (m.isEmpty() || Boolean.FALSE.equals(m.get("enabled"))));
    }
}
