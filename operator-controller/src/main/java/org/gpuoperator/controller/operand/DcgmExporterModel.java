package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/** The metrics exporter: {@code DCGM_FI_*} metrics on port 9400, behind a Service. */
final class DcgmExporterModel extends OperandModel {

    DcgmExporterModel() {
        super(Operand.DCGM_EXPORTER);
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.kubeletDir(
                        policy.kubeletRootDir(),
                        "pod-resources",
                        "pod-resources",
                        "asks the kubelet which pod holds which GPU (connecting to its socket needs write access)"),
                HostMount.validations());
    }

    @Override
    SecurityContext securityContext() {
        return rootWithoutCapabilities().build();
    }

    @Override
    boolean usesGpuWithoutAllocation() {
        return true;
    }

    /**
     * With the MIG strategy: it tells the exporter under which resource names the device plugin
     * advertises GPUs and MIG devices, which attribute them to pods.
     */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        return NvmlAccess.env(policy, NvmlAccess.ALL_CAPABILITIES);
    }

    @Override
    boolean servesHealthPort() {
        return false;
    }

    @Override
    ContainerPort port() {
        return new ContainerPortBuilder()
                .withName("metrics")
                .withContainerPort(PodContract.METRICS_PORT)
                .withProtocol("TCP")
                .build();
    }

    @Override
    Probe readiness() {
        return httpProbe("/health", "metrics");
    }

    @Override
    List<HasMetadata> extraObjects(String namespace) {
        Operand o = operand();
        return List.of(
                new ServiceBuilder()
                        .withMetadata(OperandObjects.meta(o.daemonSetName(), namespace, o))
                        .withNewSpec()
                        .withSelector(Map.of(PodContract.APP_LABEL, o.daemonSetName()))
                        .addNewPort()
                        .withName("gpu-metrics")
                        .withPort(PodContract.METRICS_PORT)
                        .withTargetPort(new IntOrString("metrics"))
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build());
    }

    @Override
    List<ObjectRef> extraObjectRefs(String namespace) {
        return List.of(new ObjectRef(Service.class, namespace, operand().daemonSetName()));
    }
}
