package org.gpuoperator.controller.bench;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.gpuoperator.controller.reconcile.ControllerSerialization;
import org.gpuoperator.controller.reconcile.RealisticNode;

/**
 * Not a test: the CPU time and allocation of parsing one kubelet-shaped node's watch event, with
 * fabric8's serialization and with the controller's ({@link ControllerSerialization}). Usage:
 * WatchParseBenchmark [events per round] (default 20000); prints 4 rounds, the first ones warm up.
 */
public final class WatchParseBenchmark {

    public static void main(String[] args) {
        int n = args.length == 0 ? 20_000 : Integer.parseInt(args[0]);
        KubernetesSerialization fabric8 = new KubernetesSerialization();
        KubernetesSerialization ours = new ControllerSerialization();
        String event =
                "{\"type\":\"MODIFIED\",\"object\":"
                        + fabric8.asJson(
                                RealisticNode.shape(
                                        new NodeBuilder()
                                                .withNewMetadata()
                                                .withName("gpu-1")
                                                .withLabels(
                                                        Map.of("nvidia.com/gpu.present", "true"))
                                                .endMetadata()
                                                .build(),
                                        "2026-12-04T10:00:00Z"))
                        + "}";
        System.out.println("event: " + event.length() + " bytes");
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 4; round++) {
            for (KubernetesSerialization s : new KubernetesSerialization[] {fabric8, ours}) {
                long cpu = mx.getCurrentThreadCpuTime();
                long bytes = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    s.unmarshal(event, WatchEvent.class);
                }
                System.out.printf(
                        "%-10s %6.1f us/event  %4d KiB allocated/event%n",
                        s == fabric8 ? "fabric8" : "controller",
                        (mx.getCurrentThreadCpuTime() - cpu) / 1e3 / n,
                        (mx.getCurrentThreadAllocatedBytes() - bytes) / n / 1024);
            }
        }
    }
}
