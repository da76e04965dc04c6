package org.gpuoperator.controller.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.controller.ControllerMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PlanCommandTest {

    @TempDir Path dir;

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ControllerMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    static String policy(String driverVersion, String upgradePolicy) {
        return """
                apiVersion: nvidia.com/v1
                kind: ClusterPolicy
                metadata:
                  name: cluster-policy
                spec:
                  operator: {}
                  daemonsets: {}
                  driver:
                    version: "%s"
                %s
                  toolkit: {}
                  devicePlugin: {}
                  dcgm: {}
                  nodeStatusExporter: {}
                  gfd: {}
                  dcgmExporter:
                    enabled: false
                """
                .formatted(driverVersion, upgradePolicy.indent(4).stripTrailing());
    }

    static final String NODES =
            """
            apiVersion: v1
            kind: List
            items:
            - apiVersion: v1
              kind: Node
              metadata:
                name: gpu-a
                labels:
                  feature.node.kubernetes.io/pci-10de.present: "true"
                  nvidia.com/gpu.deploy.driver: "true"
                  nvidia.com/gpu.deploy.device-plugin: "true"
                  nvidia.com/cuda.driver-version.full: "570.172.08"
              status:
                nodeInfo: {kubeletVersion: v1.33.1, kernelVersion: 6.8.0-1015-aws}
            - apiVersion: v1
              kind: Node
              metadata:
                name: gpu-b
                labels:
                  feature.node.kubernetes.io/pci-10de.present: "true"
                  nvidia.com/gpu.deploy.driver: "true"
                  nvidia.com/cuda.driver-version.full: "570.172.08"
              status:
                nodeInfo: {kubeletVersion: v1.29.4, kernelVersion: 6.17.0-1003-aws}
            - apiVersion: v1
              kind: Node
              metadata:
                name: gpu-c
                labels:
                  feature.node.kubernetes.io/pci-10de.present: "true"
                  nvidia.com/gpu.deploy.driver: "true"
              spec:
                unschedulable: true
            - apiVersion: v1
              kind: Node
              metadata:
                name: cpu-1
            - apiVersion: v1
              kind: Pod
              metadata:
                name: train-a
                namespace: work
                ownerReferences:
                - {apiVersion: batch/v1, kind: Job, name: train, uid: u1, controller: true}
              spec:
                nodeName: gpu-a
                containers:
                - name: c
                  image: cuda
                  resources:
                    limits: {nvidia.com/gpu: "1"}
            - apiVersion: v1
              kind: Pod
              metadata:
                name: notebook
                namespace: work
              spec:
                nodeName: gpu-b
                containers:
                - name: c
                  image: cuda
                  resources:
                    limits: {nvidia.com/mig-1g.10gb: "1"}
            - apiVersion: v1
              kind: Pod
              metadata:
                name: web
                namespace: work
              spec:
                nodeName: gpu-b
                containers:
                - {name: c, image: nginx}
            """;

    @Test
    void planListsRestartsUnloadEvictionsBatchesAndWarningsAndChangesNothing() throws Exception {
        Path next = dir.resolve("next.yaml");
        Files.writeString(
                next,
                policy(
                        "580.65.06",
                        "upgradePolicy:\n  autoUpgrade: true\n  maxParallelUpgrades: 1\n  maxUnavailable: 1"));
        Path current = dir.resolve("current.yaml");
        Files.writeString(current, policy("570.172.08", ""));
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, NODES);
        String before = Files.readString(nodes);

        Result r =
                run(
                        "plan",
                        "--policy",
                        next.toString(),
                        "--current",
                        current.toString(),
                        "--nodes",
                        nodes.toString());
        assertThat(r.code()).as(r.err()).isZero();
        System.out.println(r.out());
        assertThat(Files.readString(nodes)).isEqualTo(before);
    }
}
