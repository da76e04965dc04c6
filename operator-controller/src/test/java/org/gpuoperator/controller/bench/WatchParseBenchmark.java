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
 * fabric8's serialization and with the controller's ({@link ControllerSerialization}), and of one
 * node's reports between changes (new version and heartbeat time each), which the controller's does
 * not parse again ("repeated"). Usage: WatchParseBenchmark [events per round] (default 20000);
 * prints 4 rounds, the first ones warm up.
 */
public final class WatchParseBenchmark {

    public static void main(String[] args) {
        int n = args.length == 0 ? 20_000 : Integer.parseInt(args[0]);
        KubernetesSerialization fabric8 = new KubernetesSerialization();
        KubernetesSerialization ours = new ControllerSerialization();
        // no uid: every event parsed, as the first report of a node
        String event = report(fabric8, null, null, "2026-12-04T10:00:00Z");
        System.out.println("event: " + event.length() + " bytes");
        // one node's reports between changes: each with its own version and heartbeat time
        String[] reports = new String[1000];
        for (int i = 0; i < reports.length; i++) {
            reports[i] =
                    report(
                            fabric8,
                            "6a1f0c3e-0000-4000-8000-000000000001",
                            Integer.toString(100_000 + i),
                            String.format("2026-12-04T10:%02d:%02dZ", i / 60 % 60, i % 60));
        }
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 4; round++) {
            for (KubernetesSerialization s : new KubernetesSerialization[] {fabric8, ours}) {
                long cpu = mx.getCurrentThreadCpuTime();
                long bytes = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < n; i++) {
                    s.unmarshal(event, WatchEvent.class);
                }
                print(s == fabric8 ? "fabric8" : "controller", mx, cpu, bytes, n);
            }
            // the controller's client on repeated reports: the first parsed, the rest not
            long cpu = mx.getCurrentThreadCpuTime();
            long bytes = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                ours.unmarshal(reports[i % reports.length], WatchEvent.class);
            }
            print("repeated", mx, cpu, bytes, n);
        }
    }

    /** A kubelet-shaped node gpu-1's watch event. */
    private static String report(
            KubernetesSerialization json, String uid, String version, String heartbeat) {
        return "{\"type\":\"MODIFIED\",\"object\":"
                + json.asJson(
                        RealisticNode.shape(
                                new NodeBuilder()
                                        .withNewMetadata()
                                        .withName("gpu-1")
                                        .withUid(uid)
                                        .withResourceVersion(version)
                                        .withLabels(Map.of("nvidia.com/gpu.present", "true"))
                                        .endMetadata()
                                        .build(),
                                heartbeat))
                + "}";
    }

    private static void print(
            String what, com.sun.management.ThreadMXBean mx, long cpu, long bytes, int n) {
        System.out.printf(
                "%-10s %6.1f us/event  %4d KiB allocated/event%n",
                what,
                (mx.getCurrentThreadCpuTime() - cpu) / 1e3 / n,
                (mx.getCurrentThreadAllocatedBytes() - bytes) / n / 1024);
    }
}
