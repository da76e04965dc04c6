package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.policy.OperandSettings;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The device plugin's companion DaemonSet {@value #DAEMONSET_NAME} (upstream's
 * state-mps-control-daemon): the device plugin's image running its {@code mps-control-daemon}
 * subcommand, which starts the CUDA MPS control daemon for the GPUs a node's device-plugin config
 * shares with {@code sharing.mps}. Rendered whenever the device plugin is; it runs only on nodes
 * where feature discovery set {@value #MPS_CAPABLE_LABEL} (a config with {@code sharing.mps})
 * besides the device plugin's deploy label. Not an operand: no deploy label, no gate, no readiness
 * file of its own; its pods carry {@code app.kubernetes.io/name=}{@value #APP_NAME}, so they never
 * count as the device plugin's.
 */
final class MpsControlDaemonModel extends OperandModel {

    static final String DAEMONSET_NAME = "nvidia-device-plugin-mps-control-daemon";
    static final String APP_NAME = "mps-control-daemon";

    /** Feature discovery's label of a node whose device-plugin config uses {@code sharing.mps}. */
    static final String MPS_CAPABLE_LABEL = "nvidia.com/mps.capable";

    /** The agent's env naming the MPS root (the same path on the host and in both containers). */
    static final String MPS_ROOT_ENV = "MPS_ROOT";

    MpsControlDaemonModel() {
        super(Operand.DEVICE_PLUGIN);
    }

    @Override
    String daemonSetName() {
        return DAEMONSET_NAME;
    }

    @Override
    String appName() {
        return APP_NAME;
    }

    @Override
    String component() {
        return APP_NAME;
    }

    @Override
    Map<String, String> extraNodeSelector() {
        Map<String, String> selector = new LinkedHashMap<>();
        selector.put(MPS_CAPABLE_LABEL, "true");
        return selector;
    }

    @Override
    String containerName() {
        return APP_NAME;
    }

    /** The subcommand only: the user's {@code devicePlugin.args} are the plugin's flags. */
    @Override
    List<String> args(OperandSettings settings) {
        return List.of(APP_NAME);
    }

    /**
     * Its own Node, watched for {@code nvidia.com/device-plugin.config} as the plugin does: the
     * device plugin's service account and its rule (with {@code devicePlugin.config}); no RBAC of
     * its own.
     */
    @Override
    boolean readsPluginConfigs() {
        return true;
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(mpsRoot(policy), HostMount.validations());
    }

    /** The MPS root, read-write: the daemon creates the directories there. */
    static HostMount mpsRoot(PolicySettings policy) {
        return new HostMount(
                "mps-root",
                policy.mpsRoot(),
                policy.mpsRoot(),
                "DirectoryOrCreate",
                false,
                null,
                "MPS pipe, log and shm directories the control daemon creates and workload"
                        + " containers get");
    }

    /**
     * The MPS root as the device plugin sees it, read-only: it checks the daemon's {@code .started}
     * file and control socket, and hands the pipe directory to workloads.
     */
    static HostMount pluginMpsRoot(PolicySettings policy) {
        return new HostMount(
                "mps-root",
                policy.mpsRoot(),
                policy.mpsRoot(),
                "DirectoryOrCreate",
                true,
                null,
                "the MPS control daemon's .started file and control socket, and the pipe"
                        + " directory it hands to workloads");
    }

    /** Sets the GPUs' compute mode (exclusive process) for MPS: privileged, as upstream. */
    @Override
    SecurityContext securityContext() {
        return new SecurityContextBuilder().withPrivileged(true).build();
    }

    /** As upstream's MPS control daemon pod. */
    @Override
    boolean hostPid() {
        return true;
    }

    @Override
    boolean usesGpuWithoutAllocation() {
        return true;
    }

    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>(NvmlAccess.env(policy, NvmlAccess.COMPUTE_UTILITY));
        env.addAll(PluginConfigWiring.env(policy));
        env.add(env(MPS_ROOT_ENV, policy.mpsRoot()));
        return env;
    }
}
