package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The device plugin: advertises and allocates {@code nvidia.com/gpu} through the kubelet; with its
 * companion, the MPS control daemon ({@link MpsControlDaemonModel}).
 */
final class DevicePluginModel extends OperandModel {

    DevicePluginModel() {
        super(Operand.DEVICE_PLUGIN);
    }

    /**
     * Only with {@code devicePlugin.config}: watches its own Node for the {@code
     * nvidia.com/device-plugin.config} label and reports the config in force (or why one was
     * refused) in the Node's annotations. Without it the plugin calls no API: no role, no token.
     */
    @Override
    List<PolicyRule> clusterRules(PolicySettings policy) {
        return policy.pluginConfig().enabled()
                ? List.of(rule("", "nodes", "get", "list", "watch", "patch"))
                : List.of();
    }

    @Override
    boolean mayHaveClusterRules() {
        return true;
    }

    @Override
    boolean readsPluginConfigs() {
        return true;
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.kubeletDir(
                        policy.kubeletRootDir(),
                        "device-plugins",
                        "device-plugins",
                        "serves nvidia-gpu.sock and registers with the kubelet"),
                HostMount.validations(),
                MpsControlDaemonModel.pluginMpsRoot(policy));
    }

    /** The MPS control daemon, on the nodes whose config shares GPUs with {@code sharing.mps}. */
    @Override
    List<OperandModel> companions() {
        return COMPANIONS;
    }

    private static final List<OperandModel> COMPANIONS = List.of(new MpsControlDaemonModel());

    /** Root-owned kubelet socket directories, nothing more. */
    @Override
    SecurityContext securityContext() {
        return rootWithoutCapabilities().build();
    }

    @Override
    boolean usesGpuWithoutAllocation() {
        return true;
    }

    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env = new ArrayList<>(NvmlAccess.env(policy, NvmlAccess.COMPUTE_UTILITY));
        env.addAll(CdiWiring.devicePluginEnv(policy));
        env.addAll(PluginConfigWiring.env(policy));
        env.add(env(MpsControlDaemonModel.MPS_ROOT_ENV, policy.mpsRoot()));
        return env;
    }
}
