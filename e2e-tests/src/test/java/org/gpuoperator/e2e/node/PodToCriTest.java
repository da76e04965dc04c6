package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.kubelet.cri.v1.ContainerConfig;
import org.gpuoperator.kubelet.cri.v1.KeyValue;
import org.gpuoperator.kubelet.cri.v1.Mount;
import org.gpuoperator.kubelet.cri.v1.MountPropagation;
import org.gpuoperator.kubelet.cri.v1.NamespaceMode;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.junit.jupiter.api.Test;

class PodToCriTest {

    static final Path ROOT = Path.of("/tmp/n1");
    static final ClusterAccess ACCESS = new ClusterAccess("10.88.1.1", 6443, "tok", "PEM");

    static PodBuilder base() {
        return new PodBuilder()
                .withNewMetadata()
                .withName("agent-abc")
                .withNamespace("gpu-operator")
                .withUid("u-1")
                .addToLabels("app", "agent")
                .addToAnnotations("a", "b")
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-1")
                .withServiceAccountName("sa-1")
                .endSpec();
    }

    static PodToCri.PodContext ctx(Pod pod) {
        return new PodToCri.PodContext(
                "node-1", ROOT, PodToCri.podDir(pod, ROOT), "10.88.1.7", "10.88.1.1", ACCESS);
    }

    @Test
    void sandboxCarriesMetadataLogDirectoryLabelsAndPodNamespaces() {
        Pod pod = base().build();
        PodSandboxConfig s = PodToCri.sandbox(pod, ROOT, 0);
        assertThat(s.getMetadata().getName()).isEqualTo("agent-abc");
        assertThat(s.getMetadata().getNamespace()).isEqualTo("gpu-operator");
        assertThat(s.getMetadata().getUid()).isEqualTo("u-1");
        assertThat(s.getHostname()).isEqualTo("agent-abc");
        assertThat(s.getLogDirectory())
                .isEqualTo("/tmp/n1/var/log/pods/gpu-operator_agent-abc_u-1");
        assertThat(s.getLabelsMap())
                .containsEntry("app", "agent")
                .containsEntry("io.kubernetes.pod.uid", "u-1");
        assertThat(s.getAnnotationsMap()).containsEntry("a", "b");
        var ns = s.getLinux().getSecurityContext().getNamespaceOptions();
        assertThat(ns.getNetwork()).isEqualTo(NamespaceMode.POD);
        assertThat(ns.getPid()).isEqualTo(NamespaceMode.CONTAINER);
        assertThat(ns.getIpc()).isEqualTo(NamespaceMode.POD);
    }

    /** As the kubelet's cgroupfs driver: the pod's cgroup, under which runc puts each container. */
    @Test
    void theSandboxsCgroupParentIsThePodsCgroupByQosClass() {
        assertThat(PodToCri.sandbox(base().build(), ROOT, 0).getLinux().getCgroupParent())
                .isEqualTo("/kubepods/besteffort/podu-1");
    }

    /** Where a hostPath volume of {@code path} lives on the node, as PodToCri binds it. */
    private static Path hostPathSource(String path, Path podDir) throws Exception {
        return PodToCri.volumeSource(
                new io.fabric8.kubernetes.api.model.VolumeBuilder()
                        .withName("p")
                        .withNewHostPath()
                        .withPath(path)
                        .endHostPath()
                        .build(),
                ROOT,
                podDir);
    }

    /**
     * A hostPath of /proc is the machine's procfs (the PID view), not the node root's simulated
     * kernel files; anything under it, and other paths, stay under the node root.
     */
    @Test
    void aHostPathOfProcIsTheMachinesProcfs() throws Exception {
        Path podDir = PodToCri.podDir(base().build(), ROOT);
        for (String path : new String[] {"/proc", "/proc/", "//proc"}) {
            assertThat(hostPathSource(path, podDir)).as(path).isEqualTo(Path.of("/proc"));
        }
        for (String path : new String[] {"/proc/driver", "/procfs", "/"}) {
            assertThat(hostPathSource(path, podDir))
                    .as(path)
                    .isEqualTo(ROOT.resolve(path.substring(1)));
        }
    }

    @Test
    void hostNamespacesMapToNodeAndAHostNetworkSandboxHasNoHostname() {
        Pod pod =
                base().editSpec()
                        .withHostNetwork(true)
                        .withHostPID(true)
                        .withHostIPC(true)
                        .endSpec()
                        .build();
        PodSandboxConfig s = PodToCri.sandbox(pod, ROOT, 0);
        var ns = s.getLinux().getSecurityContext().getNamespaceOptions();
        assertThat(ns.getNetwork()).isEqualTo(NamespaceMode.NODE);
        assertThat(ns.getPid()).isEqualTo(NamespaceMode.NODE);
        assertThat(ns.getIpc()).isEqualTo(NamespaceMode.NODE);
        assertThat(s.getHostname()).isEmpty();
    }

    @Test
    void containerMapsCommandArgsEnvMountsSecurityAndLogPath() throws Exception {
        Pod pod =
                base().editSpec()
                        .addNewVolume()
                        .withName("run")
                        .withNewHostPath()
                        .withPath("/run/nvidia")
                        .endHostPath()
                        .endVolume()
                        .addNewVolume()
                        .withName("cfg")
                        .withNewConfigMap()
                        .withName("c")
                        .endConfigMap()
                        .endVolume()
                        .addNewVolume()
                        .withName("scratch")
                        .withNewEmptyDir()
                        .endEmptyDir()
                        .endVolume()
                        .addNewContainer()
                        .withName("main")
                        .withImage("img:1")
                        .withCommand("/bin/agent")
                        .withArgs("--node=$(NODE_NAME)", "$$(literal)")
                        .addNewEnv()
                        .withName("NODE_NAME")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("spec.nodeName")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("POD_IP")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("status.podIP")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("HOST_IP")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("status.hostIP")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("UID")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("metadata.uid")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("SA")
                        .withNewValueFrom()
                        .withNewFieldRef()
                        .withFieldPath("spec.serviceAccountName")
                        .endFieldRef()
                        .endValueFrom()
                        .endEnv()
                        .addNewEnv()
                        .withName("GREETING")
                        .withValue("hi $(NODE_NAME)")
                        .endEnv()
                        .addNewVolumeMount()
                        .withName("run")
                        .withMountPath("/run/nvidia")
                        .withMountPropagation("Bidirectional")
                        .endVolumeMount()
                        .addNewVolumeMount()
                        .withName("cfg")
                        .withMountPath("/etc/cfg")
                        .endVolumeMount()
                        .addNewVolumeMount()
                        .withName("scratch")
                        .withMountPath("/scratch")
                        .withReadOnly(true)
                        .endVolumeMount()
                        .withNewSecurityContext()
                        .withPrivileged(true)
                        .withRunAsUser(1000L)
                        .withReadOnlyRootFilesystem(true)
                        .withAllowPrivilegeEscalation(false)
                        .withNewCapabilities()
                        .addToAdd("SYS_ADMIN")
                        .addToDrop("ALL")
                        .endCapabilities()
                        .endSecurityContext()
                        .endContainer()
                        .endSpec()
                        .build();
        ContainerConfig c =
                PodToCri.container(
                        pod,
                        pod.getSpec().getContainers().get(0),
                        3,
                        "img:1",
                        ctx(pod),
                        PodToCri.ObjectData.NONE);
        assertThat(c.getMetadata().getName()).isEqualTo("main");
        assertThat(c.getMetadata().getAttempt()).isEqualTo(3);
        assertThat(c.getLogPath()).isEqualTo("main/3.log");
        assertThat(c.getCommandList()).containsExactly("/bin/agent");
        assertThat(c.getArgsList()).containsExactly("--node=node-1", "$(literal)");
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (KeyValue kv : c.getEnvsList()) {
            env.put(kv.getKey(), kv.getValue());
        }
        assertThat(env)
                .containsEntry("KUBERNETES_SERVICE_HOST", "10.88.1.1")
                .containsEntry("KUBERNETES_SERVICE_PORT", "6443")
                .containsEntry("NODE_NAME", "node-1")
                .containsEntry("POD_IP", "10.88.1.7")
                .containsEntry("HOST_IP", "10.88.1.1")
                .containsEntry("UID", "u-1")
                .containsEntry("SA", "sa-1")
                .containsEntry("GREETING", "hi node-1");
        assertThat(c.getMountsList())
                .extracting(
                        Mount::getContainerPath,
                        Mount::getHostPath,
                        Mount::getReadonly,
                        Mount::getPropagation)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia",
                                "/tmp/n1/run/nvidia",
                                false,
                                MountPropagation.PROPAGATION_BIDIRECTIONAL),
                        org.assertj.core.groups.Tuple.tuple(
                                "/etc/cfg",
                                "/tmp/n1/var/lib/kubelet/pods/u-1/volumes/kubernetes.io~configmap/cfg",
                                true,
                                MountPropagation.PROPAGATION_PRIVATE),
                        org.assertj.core.groups.Tuple.tuple(
                                "/scratch",
                                "/tmp/n1/var/lib/kubelet/pods/u-1/volumes/kubernetes.io~empty-dir/scratch",
                                true,
                                MountPropagation.PROPAGATION_PRIVATE),
                        org.assertj.core.groups.Tuple.tuple(
                                PodToCri.SA_MOUNT_PATH,
                                "/tmp/n1/var/lib/kubelet/pods/u-1/volumes/kubernetes.io~projected/"
                                        + PodToCri.SA_VOLUME,
                                true,
                                MountPropagation.PROPAGATION_PRIVATE));
        var sec = c.getLinux().getSecurityContext();
        assertThat(sec.getPrivileged()).isTrue();
        assertThat(sec.getRunAsUser().getValue()).isEqualTo(1000);
        assertThat(sec.getReadonlyRootfs()).isTrue();
        assertThat(sec.getNoNewPrivs()).isTrue();
        assertThat(sec.getCapabilities().getAddCapabilitiesList()).containsExactly("SYS_ADMIN");
        assertThat(sec.getCapabilities().getDropCapabilitiesList()).containsExactly("ALL");
    }

    @Test
    void theServiceAccountDecidesTheTokenWhenThePodDoesNot() {
        Pod unset = base().build();
        Pod on = base().editSpec().withAutomountServiceAccountToken(true).endSpec().build();
        Pod off = base().editSpec().withAutomountServiceAccountToken(false).endSpec().build();
        assertThat(PodToCri.automountsServiceAccount(unset, null)).isTrue();
        assertThat(PodToCri.automountsServiceAccount(unset, true)).isTrue();
        assertThat(PodToCri.automountsServiceAccount(unset, false)).isFalse();
        assertThat(PodToCri.automountsServiceAccount(on, false)).isTrue();
        assertThat(PodToCri.automountsServiceAccount(off, true)).isFalse();
    }

    @Test
    void aServiceAccountWithoutAutomountGivesNoTokenMount() throws Exception {
        Pod pod =
                base().editSpec()
                        .addNewContainer()
                        .withName("c")
                        .withImage("img")
                        .endContainer()
                        .endSpec()
                        .build();
        PodToCri.PodContext base = ctx(pod);
        PodToCri.PodContext accountOff =
                new PodToCri.PodContext(
                        base.nodeName(),
                        base.nodeRoot(),
                        base.podDir(),
                        base.podIp(),
                        base.hostIp(),
                        base.access(),
                        false);
        Container c = pod.getSpec().getContainers().getFirst();
        assertThat(PodToCri.mounts(pod, c, base))
                .extracting(Mount::getContainerPath)
                .containsExactly(PodToCri.SA_MOUNT_PATH);
        assertThat(PodToCri.mounts(pod, c, accountOff)).isEmpty();
    }

    @Test
    void argsAloneLeaveTheImageEntrypointAndNoServiceAccountWhenAutomountIsOff() throws Exception {
        Pod pod =
                base().editSpec()
                        .withAutomountServiceAccountToken(false)
                        .addNewContainer()
                        .withName("m")
                        .withImage("i")
                        .withArgs("--x")
                        .endContainer()
                        .endSpec()
                        .build();
        ContainerConfig c =
                PodToCri.container(
                        pod,
                        pod.getSpec().getContainers().get(0),
                        0,
                        "i",
                        ctx(pod),
                        PodToCri.ObjectData.NONE);
        assertThat(c.getCommandList()).isEmpty();
        assertThat(c.getArgsList()).containsExactly("--x");
        assertThat(c.getMountsList()).isEmpty();
        assertThat(c.getLinux().getSecurityContext().getNoNewPrivs()).isFalse();
    }

    @Test
    void envFromMissingObjectsIsAConfigErrorUnlessOptional() throws Exception {
        Pod pod =
                base().editSpec()
                        .addNewContainer()
                        .withName("m")
                        .withImage("i")
                        .addNewEnv()
                        .withName("K")
                        .withNewValueFrom()
                        .withNewConfigMapKeyRef()
                        .withName("cm")
                        .withKey("k")
                        .endConfigMapKeyRef()
                        .endValueFrom()
                        .endEnv()
                        .endContainer()
                        .endSpec()
                        .build();
        assertThatThrownBy(
                        () ->
                                PodToCri.container(
                                        pod,
                                        pod.getSpec().getContainers().get(0),
                                        0,
                                        "i",
                                        ctx(pod),
                                        PodToCri.ObjectData.NONE))
                .isInstanceOf(PodToCri.ConfigError.class)
                .hasMessage("configmap \"cm\" not found");
        PodToCri.ObjectData data =
                new PodToCri.ObjectData() {
                    public Optional<Map<String, String>> configMap(String ns, String name) {
                        return Optional.of(Map.of("k", "v"));
                    }

                    public Optional<Map<String, String>> secret(String ns, String name) {
                        return Optional.empty();
                    }
                };
        ContainerConfig c =
                PodToCri.container(
                        pod, pod.getSpec().getContainers().get(0), 0, "i", ctx(pod), data);
        assertThat(c.getEnvsList())
                .anyMatch(kv -> kv.getKey().equals("K") && kv.getValue().equals("v"));
    }

    @Test
    void unsupportedFieldRefAndBidirectionalWithoutPrivilegeAreConfigErrors() {
        Pod pod =
                base().editSpec()
                        .addNewVolume()
                        .withName("v")
                        .withNewHostPath()
                        .withPath("/x")
                        .endHostPath()
                        .endVolume()
                        .addNewContainer()
                        .withName("m")
                        .withImage("i")
                        .addNewVolumeMount()
                        .withName("v")
                        .withMountPath("/x")
                        .withMountPropagation("Bidirectional")
                        .endVolumeMount()
                        .endContainer()
                        .endSpec()
                        .build();
        assertThatThrownBy(
                        () ->
                                PodToCri.container(
                                        pod,
                                        pod.getSpec().getContainers().get(0),
                                        0,
                                        "i",
                                        ctx(pod),
                                        PodToCri.ObjectData.NONE))
                .isInstanceOf(PodToCri.ConfigError.class)
                .hasMessageContaining("privileged");
        assertThatThrownBy(() -> PodToCri.fieldRef(pod, "spec.bogus", ctx(pod)))
                .isInstanceOf(PodToCri.ConfigError.class);
    }

    @Test
    void downwardApiLabelsAndAnnotations() throws Exception {
        Pod pod = base().build();
        assertThat(PodToCri.fieldRef(pod, "metadata.labels['app']", ctx(pod))).isEqualTo("agent");
        assertThat(PodToCri.fieldRef(pod, "metadata.annotations['a']", ctx(pod))).isEqualTo("b");
        assertThat(PodToCri.fieldRef(pod, "metadata.namespace", ctx(pod)))
                .isEqualTo("gpu-operator");
        assertThat(PodToCri.fieldRef(pod, "metadata.name", ctx(pod))).isEqualTo("agent-abc");
    }

    @Test
    void aDevicePluginsAnswerAddsEnvsBeforeTheContainersOwnMountsDevicesAndAnnotations()
            throws Exception {
        Pod pod =
                base().editSpec()
                        .addNewContainer()
                        .withName("main")
                        .withImage("cuda")
                        .addNewEnv()
                        .withName("A")
                        .withValue("1")
                        .endEnv()
                        .endContainer()
                        .endSpec()
                        .build();
        var devices =
                new DeviceAdmission.ContainerDevices(
                        Map.of("NVIDIA_VISIBLE_DEVICES", "GPU-1,GPU-2"),
                        java.util.List.of(
                                new DeviceAdmission.HostMount(
                                        "/var/run/nvidia-container-devices/GPU-1",
                                        "/dev/null",
                                        true)),
                        java.util.List.of(
                                new DeviceAdmission.HostDevice(
                                        "/dev/nvidia0", "/dev/nvidia0", "rw")),
                        Map.of("cdi.k8s.io/nvidia-device-plugin_x", "nvidia.com/gpu=GPU-1"));
        ContainerConfig c =
                PodToCri.container(
                        pod,
                        pod.getSpec().getContainers().getFirst(),
                        0,
                        "img",
                        ctx(pod),
                        PodToCri.ObjectData.NONE,
                        devices);
        assertThat(c.getEnvsList())
                .extracting(KeyValue::getKey)
                .startsWith("NVIDIA_VISIBLE_DEVICES")
                .endsWith("A");
        assertThat(c.getEnvsList())
                .contains(
                        KeyValue.newBuilder()
                                .setKey("NVIDIA_VISIBLE_DEVICES")
                                .setValue("GPU-1,GPU-2")
                                .build());
        assertThat(c.getMountsList().getLast().getContainerPath())
                .isEqualTo("/var/run/nvidia-container-devices/GPU-1");
        assertThat(c.getMountsList().getLast().getReadonly()).isTrue();
        assertThat(c.getDevicesList())
                .singleElement()
                .satisfies(
                        d -> {
                            assertThat(d.getContainerPath()).isEqualTo("/dev/nvidia0");
                            assertThat(d.getPermissions()).isEqualTo("rw");
                        });
        assertThat(c.getAnnotationsMap())
                .containsEntry("cdi.k8s.io/nvidia-device-plugin_x", "nvidia.com/gpu=GPU-1")
                .containsKey("io.kubernetes.container.restartCount");
        // without devices: nothing of the kind
        ContainerConfig plain =
                PodToCri.container(
                        pod,
                        pod.getSpec().getContainers().getFirst(),
                        0,
                        "img",
                        ctx(pod),
                        PodToCri.ObjectData.NONE);
        assertThat(plain.getEnvsList())
                .extracting(KeyValue::getKey)
                .doesNotContain("NVIDIA_VISIBLE_DEVICES");
        assertThat(plain.getDevicesList()).isEmpty();
    }
}
