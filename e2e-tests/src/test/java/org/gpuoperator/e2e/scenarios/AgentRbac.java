package org.gpuoperator.e2e.scenarios;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.apiserver.ServiceAccountTokens;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.rbac.RbacEvaluator;

/**
 * RBAC is exactly what each agent uses: the API calls each agent's service account made in a
 * simulated cluster (pods as containers, each with its own token) against the rules the controller
 * rendered for it. A call no rule allows is a missing grant; a verb × resource no call used is an
 * unused grant, unless {@link #UNUSED_BUT_NEEDED} says why a real node needs it.
 */
final class AgentRbac {

    /** The agents' service accounts; adding an agent is one line. */
    static final List<String> AGENTS =
            List.of(
                    Operand.DRIVER.serviceAccountName(),
                    Operand.CONTAINER_TOOLKIT.serviceAccountName(),
                    Operand.DEVICE_PLUGIN.serviceAccountName(),
                    Operand.GPU_FEATURE_DISCOVERY.serviceAccountName(),
                    Operand.DCGM_EXPORTER.serviceAccountName(),
                    Operand.VALIDATOR.serviceAccountName());

    /**
     * Grants that the simulated scenarios cannot exercise but a real node needs, as {@code
     * "<service account> <verb> <resource>"} (resource with its group, {@code group/resource},
     * outside the core group) → why.
     */
    static final Map<String, String> UNUSED_BUT_NEEDED =
            Map.of(
                    // feature discovery publishes through NFD's NodeFeature API when the API server
                    // serves it (--use-node-feature-api=auto): read, create, then replace its
                    // object. The simulated cluster serves no NFD CRD, so it labels the node.
                    "nvidia-gpu-feature-discovery get nfd.k8s-sigs.io/nodefeatures",
                    "NodeFeature API: reads its NodeFeature object (NFD not served in simulation)",
                    "nvidia-gpu-feature-discovery create nfd.k8s-sigs.io/nodefeatures",
                    "NodeFeature API: creates its NodeFeature object (NFD not served in simulation)",
                    "nvidia-gpu-feature-discovery update nfd.k8s-sigs.io/nodefeatures",
                    "NodeFeature API: replaces its NodeFeature object (NFD not served in simulation)",
                    // a workload pod that failed, or has not finished, without its containers or
                    // status saying why: the newest Warning event about it is the reason (the
                    // runtime's error lands there). A healthy node's pods succeed and need none.
                    "nvidia-operator-validator list events",
                    "the reason of a workload pod whose status says none (no such pod in these"
                            + " scenarios)");

    private AgentRbac() {}

    /** The RBAC objects as the controller created them (read while the policy exists). */
    static List<HasMetadata> rendered(KubernetesClient client) {
        List<HasMetadata> out = new ArrayList<>();
        var rbac = client.rbac();
        out.addAll(
                rbac.clusterRoles()
                        .withLabel(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                        .list()
                        .getItems());
        out.addAll(
                rbac.clusterRoleBindings()
                        .withLabel(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                        .list()
                        .getItems());
        out.addAll(
                rbac.roles()
                        .inAnyNamespace()
                        .withLabel(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                        .list()
                        .getItems());
        out.addAll(
                rbac.roleBindings()
                        .inAnyNamespace()
                        .withLabel(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                        .list()
                        .getItems());
        return out;
    }

    /**
     * Every way the agents' calls and their grants disagree, one line each; empty when RBAC is
     * exact.
     */
    static List<String> violations(Collection<HasMetadata> rendered, Set<ApiCall> calls) {
        List<String> out = new ArrayList<>();
        Set<String> bound = boundServiceAccounts(rendered);
        bound.removeAll(AGENTS);
        for (String account : bound) {
            out.add(
                    "service account "
                            + account
                            + " is granted RBAC but is not in AgentRbac.AGENTS");
        }
        RbacEvaluator rbac = RbacEvaluator.of(rendered);
        Set<String> allowListUsed = new TreeSet<>();
        for (String account : AGENTS) {
            String user = ServiceAccountTokens.user(SimulatedCluster.NAMESPACE, account);
            RbacEvaluator.Comparison c = rbac.compare(user, calls);
            for (ApiCall call : c.missing()) {
                out.add("missing grant: " + account + " made " + call + ", which no rule allows");
            }
            for (RbacEvaluator.Grant g : c.unused()) {
                String key = key(account, g);
                if (UNUSED_BUT_NEEDED.containsKey(key)) {
                    allowListUsed.add(key);
                } else {
                    out.add("unused grant: " + account + " never used " + g);
                }
            }
        }
        for (String key : UNUSED_BUT_NEEDED.keySet()) {
            if (!allowListUsed.contains(key)) {
                out.add("stale allow-list entry \"" + key + "\": no such unused grant");
            }
        }
        return out;
    }

    private static String key(String account, RbacEvaluator.Grant g) {
        return account
                + " "
                + g.verb()
                + " "
                + (g.apiGroup().isEmpty() ? "" : g.apiGroup() + "/")
                + g.resource();
    }

    /** The service accounts in the operator's namespace that a rendered binding names. */
    private static Set<String> boundServiceAccounts(Collection<HasMetadata> rendered) {
        Set<String> out = new TreeSet<>();
        for (HasMetadata o : rendered) {
            List<Subject> subjects =
                    o instanceof ClusterRoleBinding b
                            ? b.getSubjects()
                            : o instanceof RoleBinding b ? b.getSubjects() : List.of();
            for (Subject s : subjects == null ? List.<Subject>of() : subjects) {
                if ("ServiceAccount".equals(s.getKind())) {
                    out.add(s.getName());
                }
            }
        }
        return out;
    }
}
