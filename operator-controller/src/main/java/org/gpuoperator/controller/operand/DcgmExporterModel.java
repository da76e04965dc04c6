package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/** The metrics exporter: {@code DCGM_FI_*} metrics on port 9400, behind a Service. */
final class DcgmExporterModel extends OperandModel {

    /** The Service's port name, upstream's. */
    static final String METRICS_PORT_NAME = "gpu-metrics";

    DcgmExporterModel() {
        super(Operand.DCGM_EXPORTER);
    }

    /**
     * The host's {@code /proc}, read-only, where the exporter is told to look ({@value
     * #HOST_PROC_ENV}): NVML names GPU processes by host PID, and their {@code /proc/<pid>/cgroup}
     * says their pod. Less than {@code hostPID}, which would also put the exporter's own processes
     * in the host's PID namespace. Under the host root, where the simulated source reads it too.
     */
    static final String HOST_PROC = PodContract.HOST_ROOT + "/proc";

    static final String HOST_PROC_ENV = "DCGM_EXPORTER_HOST_PROC";

    /** The kubelet's device checkpoint in the mounted device-plugins directory. */
    static final String DEVICE_CHECKPOINT =
            PodContract.IN_CONTAINER_KUBELET_ROOT + "/device-plugins/kubelet_internal_checkpoint";

    static final String DEVICE_CHECKPOINT_ENV = "DCGM_EXPORTER_KUBELET_DEVICE_CHECKPOINT";

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.kubeletDir(
                        policy.kubeletRootDir(),
                        "pod-resources",
                        "pod-resources",
                        "asks the kubelet which pod holds which GPU (connecting to its socket needs write access)"),
                // the directory, not the file: the kubelet replaces the file on every write
                HostMount.kubeletDir(
                                policy.kubeletRootDir(),
                                "device-plugins",
                                "device-plugins",
                                "reads the kubelet's device checkpoint (kubelet_internal_checkpoint):"
                                        + " the pod UID of each GPU holder, for per-pod usage on"
                                        + " shared GPUs")
                        .asReadOnly(),
                HostMount.underHostRoot(
                        "host-proc",
                        "/proc",
                        "Directory",
                        true,
                        "reads /proc/<pid>/cgroup of the GPU processes NVML names by host PID: the"
                                + " pod of each, for per-pod usage on shared GPUs (instead of"
                                + " hostPID)"),
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
     * advertises GPUs and MIG devices, which attribute them to pods; and where the mounted host
     * {@code /proc} and device checkpoint are (the exporter's defaults are under its host root).
     */
    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>(NvmlAccess.env(policy, NvmlAccess.ALL_CAPABILITIES));
        env.add(env(HOST_PROC_ENV, HOST_PROC));
        env.add(env(DEVICE_CHECKPOINT_ENV, DEVICE_CHECKPOINT));
        return env;
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

    /** The Service, and with {@code dcgmExporter.serviceMonitor.enabled} its ServiceMonitor. */
    @Override
    List<HasMetadata> extraObjects(String namespace, PolicySettings policy) {
        Operand o = operand();
        Service service =
                new ServiceBuilder()
                        .withMetadata(meta(namespace))
                        .withNewSpec()
                        .withSelector(Map.of(PodContract.APP_LABEL, o.daemonSetName()))
                        .addNewPort()
                        .withName(METRICS_PORT_NAME)
                        .withPort(PodContract.METRICS_PORT)
                        .withTargetPort(new IntOrString("metrics"))
                        .withProtocol("TCP")
                        .endPort()
                        .endSpec()
                        .build();
        PolicySettings.ExporterMonitor monitor = policy.exporterMonitor();
        return monitor.enabled()
                ? List.of(service, serviceMonitor(namespace, monitor))
                : List.of(service);
    }

    /**
     * The ServiceMonitor upstream renders: the Service's {@value #METRICS_PORT_NAME} port at {@code
     * /metrics}, in this namespace, with the policy's interval, timeout, honorLabels, relabelings
     * and extra labels. Pure.
     */
    static ServiceMonitor serviceMonitor(String namespace, PolicySettings.ExporterMonitor monitor) {
        Operand o = Operand.DCGM_EXPORTER;
        return ServiceMonitor.of(
                meta(namespace),
                Map.of(PodContract.APP_LABEL, o.daemonSetName()),
                METRICS_PORT_NAME,
                null,
                monitor);
    }

    /**
     * The Service's and the ServiceMonitor's metadata: with upstream's label {@code
     * app=nvidia-dcgm-exporter}, which its ServiceMonitor and users' scrape configs select on.
     */
    private static ObjectMeta meta(String namespace) {
        Operand o = Operand.DCGM_EXPORTER;
        ObjectMeta meta = OperandObjects.meta(o.daemonSetName(), namespace, o);
        meta.getLabels().put(PodContract.APP_LABEL, o.daemonSetName());
        return meta;
    }

    @Override
    List<ObjectRef> extraObjectRefs(String namespace) {
        return List.of(
                new ObjectRef(Service.class, namespace, operand().daemonSetName()),
                monitorRef(namespace));
    }

    /** The ServiceMonitor's kind and name. */
    static ObjectRef monitorRef(String namespace) {
        return new ObjectRef(
                ServiceMonitor.class, namespace, Operand.DCGM_EXPORTER.daemonSetName());
    }
}
