package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import java.util.List;
import org.gpuoperator.controller.policy.PolicySettings;

/** GPU feature discovery: the GPU's facts as {@code nvidia.com/*} labels of its node. */
final class FeatureDiscoveryModel extends OperandModel {

    FeatureDiscoveryModel() {
        super(Operand.GPU_FEATURE_DISCOVERY);
    }

    /** Writes the {@code nvidia.com/gpu.*} labels of its own node: reads it, JSON-patches it. */
    @Override
    List<PolicyRule> clusterRules() {
        return List.of(rule("", "nodes", "get", "patch"));
    }

    /**
     * With {@code devicePlugin.config} it also watches its own Node for the {@code
     * nvidia.com/device-plugin.config} label.
     */
    @Override
    List<PolicyRule> clusterRules(PolicySettings policy) {
        return policy.pluginConfig().enabled()
                ? List.of(rule("", "nodes", "get", "list", "watch", "patch"))
                : clusterRules();
    }

    @Override
    boolean readsPluginConfigs() {
        return true;
    }

    /** NodeFeature objects when NFD's API is installed: read, created, then replaced. */
    @Override
    List<PolicyRule> namespaceRules() {
        return List.of(rule("nfd.k8s-sigs.io", "nodefeatures", "get", "create", "update"));
    }

    @Override
    List<HostMount> hostMounts(PolicySettings policy) {
        return List.of(
                HostMount.underHostRoot(
                        "host-sys",
                        "/sys",
                        "Directory",
                        true,
                        "machine type (DMI product name) and GPU PCI class for the gpu.machine and gpu.mode labels"),
                HostMount.validations());
    }

    /**
     * Root for its readiness file in the root-owned /run/nvidia/validations; nothing else of
     * root's.
     */
    @Override
    SecurityContext securityContext() {
        return rootWithoutCapabilities().withReadOnlyRootFilesystem(true).build();
    }

    @Override
    boolean usesGpuWithoutAllocation() {
        return true;
    }

    @Override
    boolean readsHostRoot() {
        return true;
    }

    @Override
    List<EnvVar> operandEnv(PolicySettings policy) {
        List<EnvVar> env =
                new java.util.ArrayList<>(NvmlAccess.env(policy, NvmlAccess.ALL_CAPABILITIES));
        env.addAll(PluginConfigWiring.env(policy));
        return env;
    }
}
