package org.gpuoperator.controller.operand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.policy.PolicySettings;

/**
 * The objects of one operand, from its model: service account, RBAC when the model asks for
 * permissions, the model's extra objects, then the DaemonSet and its companions' DaemonSets. {@link
 * #refs} names the same objects without building them, which is how a disabled operand's objects
 * are found for deletion.
 */
final class OperandObjects {

    private static final String RBAC_GROUP = "rbac.authorization.k8s.io";

    private OperandObjects() {}

    /** In apply order: identity and RBAC before the DaemonSet that uses them. */
    static List<HasMetadata> build(
            OperandModel model, PolicySettings policy, String namespace, String image) {
        Operand o = model.operand();
        String account = o.serviceAccountName();
        List<PolicyRule> clusterRules = model.clusterRules(policy);
        boolean needsToken = !clusterRules.isEmpty() || !model.namespaceRules().isEmpty();
        List<HasMetadata> out = new ArrayList<>();
        out.add(
                new ServiceAccountBuilder()
                        .withMetadata(meta(account, namespace, o))
                        .withAutomountServiceAccountToken(needsToken)
                        .build());
        if (!clusterRules.isEmpty()) {
            out.add(
                    new ClusterRoleBuilder()
                            .withMetadata(meta(account, null, o))
                            .withRules(clusterRules)
                            .build());
            out.add(
                    new ClusterRoleBindingBuilder()
                            .withMetadata(meta(account, null, o))
                            .withNewRoleRef(RBAC_GROUP, "ClusterRole", account)
                            .withSubjects(subject(account, namespace))
                            .build());
        }
        if (!model.namespaceRules().isEmpty()) {
            out.add(
                    new RoleBuilder()
                            .withMetadata(meta(account, namespace, o))
                            .withRules(model.namespaceRules())
                            .build());
            out.add(
                    new RoleBindingBuilder()
                            .withMetadata(meta(account, namespace, o))
                            .withNewRoleRef(RBAC_GROUP, "Role", account)
                            .withSubjects(subject(account, namespace))
                            .build());
        }
        out.addAll(model.extraObjects(namespace, policy));
        out.add(DaemonSetSkeleton.build(model, policy, namespace, image));
        for (OperandModel companion : model.companions()) {
            out.add(DaemonSetSkeleton.build(companion, policy, namespace, image));
        }
        return out;
    }

    /** Kinds and names of what {@link #build} returns, in the same order. */
    static List<ObjectRef> refs(OperandModel model, String namespace) {
        String account = model.operand().serviceAccountName();
        List<ObjectRef> out = new ArrayList<>();
        out.add(new ObjectRef(ServiceAccount.class, namespace, account));
        if (model.mayHaveClusterRules()) {
            out.add(new ObjectRef(ClusterRole.class, null, account));
            out.add(new ObjectRef(ClusterRoleBinding.class, null, account));
        }
        if (!model.namespaceRules().isEmpty()) {
            out.add(new ObjectRef(Role.class, namespace, account));
            out.add(new ObjectRef(RoleBinding.class, namespace, account));
        }
        out.addAll(model.extraObjectRefs(namespace));
        out.add(new ObjectRef(DaemonSet.class, namespace, model.daemonSetName()));
        for (OperandModel companion : model.companions()) {
            out.add(new ObjectRef(DaemonSet.class, namespace, companion.daemonSetName()));
        }
        return out;
    }

    /**
     * The ClusterRole and its binding of an enabled operand that this policy gives no cluster rules
     * but another policy may (the device plugin without {@code devicePlugin.config}), in delete
     * order; empty otherwise.
     */
    static List<ObjectRef> unwantedClusterRole(OperandModel model, PolicySettings policy) {
        if (!model.mayHaveClusterRules() || !model.clusterRules(policy).isEmpty()) {
            return List.of();
        }
        String account = model.operand().serviceAccountName();
        return List.of(
                new ObjectRef(ClusterRoleBinding.class, null, account),
                new ObjectRef(ClusterRole.class, null, account));
    }

    private static Subject subject(String account, String namespace) {
        return new SubjectBuilder()
                .withKind("ServiceAccount")
                .withName(account)
                .withNamespace(namespace)
                .build();
    }

    static ObjectMeta meta(String name, String namespace, Operand operand) {
        return meta(name, namespace, operand.component());
    }

    static ObjectMeta meta(String name, String namespace, String component) {
        return new ObjectMetaBuilder()
                .withName(name)
                .withNamespace(namespace)
                .withLabels(commonLabels(component))
                .build();
    }

    static Map<String, String> commonLabels(String component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY);
        labels.put(PodContract.COMPONENT_LABEL, component);
        return labels;
    }
}
