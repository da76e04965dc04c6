package org.gpuoperator.controller.reconcile;

import java.util.List;

/**
 * A Node shaped like one a real kubelet reports: 50 images, the standard conditions, addresses,
 * nodeInfo and managedFields (5–15 KB of JSON on a real cluster).
 */
public final class RealisticNode {

    private RealisticNode() {}

    /** The kubelet's standard conditions, all fine, with their heartbeat at {@code time}. */
    public static List<io.fabric8.kubernetes.api.model.NodeCondition> conditions(String time) {
        return java.util.stream.Stream.of("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
                .map(
                        type ->
                                new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                                        .withType(type)
                                        .withStatus(type.equals("Ready") ? "True" : "False")
                                        .withLastHeartbeatTime(time)
                                        .withLastTransitionTime("2026-12-01T08:00:00Z")
                                        .withReason("Kubelet" + type)
                                        .withMessage("kubelet reports " + type)
                                        .build())
                .toList();
    }

    /** {@code n} as a real kubelet reports it, with its heartbeat at {@code time}. */
    public static io.fabric8.kubernetes.api.model.Node shape(
            io.fabric8.kubernetes.api.model.Node n, String time) {
        var status = new io.fabric8.kubernetes.api.model.NodeStatusBuilder(n.getStatus());
        status.withConditions(conditions(time));
        status.withAddresses(
                new io.fabric8.kubernetes.api.model.NodeAddress("10.0.3.7", "InternalIP"),
                new io.fabric8.kubernetes.api.model.NodeAddress(
                        n.getMetadata().getName(), "Hostname"));
        status.withImages(
                java.util.stream.IntStream.range(0, 50)
                        .mapToObj(
                                i ->
                                        new io.fabric8.kubernetes.api.model.ContainerImage(
                                                List.of(
                                                        "registry.example.com/team/app-"
                                                                + i
                                                                + "@sha256:"
                                                                + "0".repeat(60)
                                                                + String.format("%04d", i),
                                                        "registry.example.com/team/app-"
                                                                + i
                                                                + ":v1"),
                                                100_000_000L + i))
                        .toList());
        status.editOrNewNodeInfo()
                .withKubeletVersion("v1.32.0")
                .withOsImage("Ubuntu 22.04.4 LTS")
                .withKernelVersion("5.15.0-105-generic")
                .withArchitecture("amd64")
                .withOperatingSystem("linux")
                .endNodeInfo();
        n.setStatus(status.build());
        n.getMetadata()
                .setManagedFields(
                        List.of(
                                new io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder()
                                        .withManager("kubelet")
                                        .withOperation("Update")
                                        .withApiVersion("v1")
                                        .withTime(time)
                                        .withFieldsType("FieldsV1")
                                        .withNewFieldsV1()
                                        .addToAdditionalProperties("f:status", kubeletFields())
                                        .endFieldsV1()
                                        .withSubresource("status")
                                        .build()));
        return n;
    }

    /** The kubelet's managed field set: a key per condition, image and address, as real ones. */
    private static java.util.Map<String, Object> kubeletFields() {
        java.util.Map<String, Object> conditions = new java.util.LinkedHashMap<>();
        for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")) {
            conditions.put(
                    "k:{\"type\":\"" + type + "\"}",
                    java.util.Map.of(
                            "f:lastHeartbeatTime", java.util.Map.of(),
                            "f:message", java.util.Map.of(),
                            "f:reason", java.util.Map.of(),
                            "f:status", java.util.Map.of()));
        }
        return java.util.Map.of(
                "f:conditions",
                conditions,
                "f:images",
                java.util.Map.of(),
                "f:nodeInfo",
                java.util.Map.of(
                        "f:bootID", java.util.Map.of(), "f:kernelVersion", java.util.Map.of()));
    }
}
