package org.gpuoperator.controller.plan;

/** A policy and a nodes file (nodes and pods) for the plan tests. */
public final class PlanFixtures {

    private PlanFixtures() {}

    public static String policy(String driverVersion, String upgradePolicy) {
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

    public static final String NODES =
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
}
