package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.CapabilitiesBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * What sets one operand apart: its permissions, host paths, security context and extra env. The
 * objects themselves are built by {@link OperandObjects} and {@link DaemonSetSkeleton}, the same
 * for every operand; a model only answers these questions, as pure functions of the policy
 * settings.
 */
public abstract sealed class OperandModel
        permits DriverModel,
                ToolkitModel,
                DevicePluginModel,
                FeatureDiscoveryModel,
                DcgmExporterModel,
                MigManagerModel,
                ValidatorModel,
                MpsControlDaemonModel {

    private final Operand operand;

    OperandModel(Operand operand) {
        this.operand = operand;
    }

    public final Operand operand() {
        return operand;
    }

    /**
     * Cluster-scoped API permissions of the operand's service account; least privilege, often none.
     */
    List<PolicyRule> clusterRules() {
        return List.of();
    }

    /**
     * As {@link #clusterRules()}, for a model whose rules depend on the policy (the device plugin's
     * and feature discovery's node watch for {@code devicePlugin.config}).
     */
    List<PolicyRule> clusterRules(PolicySettings policy) {
        return clusterRules();
    }

    /**
     * Whether some policy gives this operand a ClusterRole: its objects' kinds and names, and what
     * {@link OperandModels#unwantedRbac} deletes when this policy gives it none.
     */
    boolean mayHaveClusterRules() {
        return !clusterRules().isEmpty();
    }

    /** API permissions in the operator namespace. */
    List<PolicyRule> namespaceRules() {
        return List.of();
    }

    /**
     * The DaemonSet's name, also the value of its {@code app} label and selector: the operand's,
     * unless the model is one of its companions ({@link #companions}).
     */
    String daemonSetName() {
        return operand.daemonSetName();
    }

    /**
     * The pods' {@code app.kubernetes.io/name}: the module's, which is how operand pods are told
     * apart ({@code nodes.OperandPods}); a companion's differs, so its pods never count as the
     * operand's.
     */
    String appName() {
        return operand.module();
    }

    /** {@code app.kubernetes.io/component} of the DaemonSet and its pods. */
    String component() {
        return operand.component();
    }

    /** Node labels the pods need besides the operand's deploy label. */
    Map<String, String> extraNodeSelector() {
        return Map.of();
    }

    /** The container's args: the operand section's {@code args} (null: the image's). */
    List<String> args(OperandSettings settings) {
        return settings.args().isEmpty() ? null : settings.args();
    }

    /**
     * DaemonSets that come and go with the operand (the device plugin's MPS control daemon): built
     * by {@link DaemonSetSkeleton} from the same settings and image, applied after the operand's
     * own DaemonSet and deleted with it; they share its service account.
     */
    List<OperandModel> companions() {
        return List.of();
    }

    /** The container's name: the module's, unless a contract names it otherwise. */
    String containerName() {
        return operand.module();
    }

    /** The container's command, or null for the image's entrypoint. */
    List<String> command() {
        return null;
    }

    /** Host paths the agent itself touches (the simulated-GPU mount is added for GPU users). */
    abstract List<HostMount> hostMounts(PolicySettings policy);

    abstract SecurityContext securityContext();

    /**
     * Device plugin, feature discovery and exporter see every GPU without asking the device plugin
     * for one.
     */
    boolean usesGpuWithoutAllocation() {
        return false;
    }

    /**
     * Changes the GPUs themselves (the MIG manager): in simulation it writes the simulated GPUs'
     * state, which the others only read.
     */
    boolean changesGpus() {
        return false;
    }

    /** ConfigMaps and other volumes of the model's own, beside its host paths. */
    List<Volume> volumes(PolicySettings policy) {
        return List.of();
    }

    /** Where {@link #volumes} are mounted. */
    List<VolumeMount> volumeMounts(PolicySettings policy) {
        return List.of();
    }

    /** Reads host files under {@link PodContract#HOST_ROOT} on a real node. */
    boolean readsHostRoot() {
        return false;
    }

    /** Reads the named device-plugin configs of {@code devicePlugin.config} (mount and env). */
    boolean readsPluginConfigs() {
        return false;
    }

    /** Env entries of this operand only, after the common ones and before the user's. */
    List<EnvVar> operandEnv(PolicySettings policy) {
        return List.of();
    }

    /** As {@link #operandEnv(PolicySettings)}, for a model that also needs its own image. */
    List<EnvVar> operandEnv(PolicySettings policy, String image) {
        return operandEnv(policy);
    }

    /**
     * Serves {@code /readyz} on the health port; the exporter answers on its metrics port instead.
     */
    boolean servesHealthPort() {
        return true;
    }

    ContainerPort port() {
        return new ContainerPortBuilder()
                .withName("health")
                .withContainerPort(PodContract.HEALTH_PORT)
                .withProtocol("TCP")
                .build();
    }

    /** The container's ports: {@link #port()} unless a model has more. */
    List<ContainerPort> ports() {
        return List.of(port());
    }

    Probe readiness() {
        return httpProbe("/readyz", "health");
    }

    /** Signals the container runtime, which needs the host's PID namespace. */
    boolean hostPid() {
        return false;
    }

    DaemonSetUpdateStrategy updateStrategy(DaemonSetSettings common) {
        if (DaemonSetSettings.ON_DELETE.equals(common.updateStrategy())) {
            return onDelete();
        }
        String max = common.maxUnavailable();
        return new DaemonSetUpdateStrategyBuilder()
                .withType(DaemonSetSettings.ROLLING_UPDATE)
                .withNewRollingUpdate()
                .withMaxUnavailable(
                        max.matches("\\d+")
                                ? new IntOrString(Integer.parseInt(max))
                                : new IntOrString(max))
                .endRollingUpdate()
                .build();
    }

    /** Objects besides identity, RBAC and the DaemonSet (created before the DaemonSet). */
    List<HasMetadata> extraObjects(String namespace, PolicySettings policy) {
        return List.of();
    }

    /**
     * Kinds and names of every object {@link #extraObjects} may build, known without building them.
     */
    List<ObjectRef> extraObjectRefs(String namespace) {
        return List.of();
    }

    // small shared pieces of the models

    static DaemonSetUpdateStrategy onDelete() {
        return new DaemonSetUpdateStrategyBuilder().withType(DaemonSetSettings.ON_DELETE).build();
    }

    static PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups(group)
                .withResources(resource)
                .withVerbs(verbs)
                .build();
    }

    static Probe httpProbe(String path, String port) {
        return new ProbeBuilder()
                .withNewHttpGet()
                .withPath(path)
                .withPort(new IntOrString(port))
                .endHttpGet()
                // every second: the kubelet's first probe comes as the container starts, before
                // the JVM serves, so a longer period is the step's wait on every node; ten misses
                // (as before: three 5 s periods) before the pod turns unready
                .withPeriodSeconds(1)
                .withFailureThreshold(10)
                .build();
    }

    /**
     * Root without privileges or capabilities: enough for root-owned host directories and nothing
     * more.
     */
    static SecurityContextBuilder rootWithoutCapabilities() {
        return new SecurityContextBuilder()
                .withPrivileged(false)
                .withRunAsUser(0L)
                .withAllowPrivilegeEscalation(false)
                .withCapabilities(new CapabilitiesBuilder().withDrop("ALL").build());
    }

    static EnvVar env(String name, String value) {
        return new EnvVar(name, value, null);
    }
}
