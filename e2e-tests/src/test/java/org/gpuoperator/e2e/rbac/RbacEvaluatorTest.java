package org.gpuoperator.e2e.rbac;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.util.List;
import java.util.Set;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.rbac.RbacEvaluator.Grant;
import org.junit.jupiter.api.Test;

class RbacEvaluatorTest {

    private static final String NS = "gpu-operator";
    private static final String SA = "system:serviceaccount:gpu-operator:agent";
    private static final String RBAC = "rbac.authorization.k8s.io";

    private static PolicyRule rule(List<String> groups, List<String> resources, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups(groups)
                .withResources(resources)
                .withVerbs(verbs)
                .build();
    }

    private static PolicyRule named(String resource, List<String> names, String... verbs) {
        return new PolicyRuleBuilder()
                .withApiGroups("")
                .withResources(resource)
                .withResourceNames(names)
                .withVerbs(verbs)
                .build();
    }

    /** A ClusterRole with {@code rules}, bound cluster-wide to the agent's service account. */
    private static List<HasMetadata> clusterWide(PolicyRule... rules) {
        return List.of(
                new ClusterRoleBuilder()
                        .withNewMetadata()
                        .withName("agent")
                        .endMetadata()
                        .withRules(rules)
                        .build(),
                new ClusterRoleBindingBuilder()
                        .withNewMetadata()
                        .withName("agent")
                        .endMetadata()
                        .withNewRoleRef(RBAC, "ClusterRole", "agent")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("agent")
                        .withNamespace(NS)
                        .endSubject()
                        .build());
    }

    /** A Role with {@code rules} in {@link #NS}, bound there to the agent. */
    private static List<HasMetadata> inNamespace(PolicyRule... rules) {
        return List.of(
                new RoleBuilder()
                        .withNewMetadata()
                        .withName("agent")
                        .withNamespace(NS)
                        .endMetadata()
                        .withRules(rules)
                        .build(),
                new RoleBindingBuilder()
                        .withNewMetadata()
                        .withName("agent")
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewRoleRef(RBAC, "Role", "agent")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("agent")
                        .withNamespace(NS)
                        .endSubject()
                        .build());
    }

    private static ApiCall call(
            String verb, String group, String resource, String ns, String name) {
        return new ApiCall(SA, verb, group, resource, null, ns, name);
    }

    private static ApiCall sub(String verb, String resource, String sub, String ns, String name) {
        return new ApiCall(SA, verb, "", resource, sub, ns, name);
    }

    @Test
    void aClusterRoleAllowsItsVerbsOnItsResourcesAndNothingElse() {
        RbacEvaluator rbac =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("nodes"), "get", "patch")));
        assertThat(rbac.allows(call("get", "", "nodes", null, "n1"))).isTrue();
        assertThat(rbac.allows(call("patch", "", "nodes", null, "n1"))).isTrue();
        assertThat(rbac.allows(call("update", "", "nodes", null, "n1"))).isFalse();
        assertThat(rbac.allows(call("list", "", "nodes", null, null))).isFalse();
        assertThat(rbac.allows(call("get", "", "pods", "ns", "p"))).isFalse();
        assertThat(rbac.allows(call("get", "apps", "nodes", null, "n1"))).isFalse();
    }

    @Test
    void anotherUserGetsNothingFromTheAgentsBinding() {
        RbacEvaluator rbac =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("nodes"), "get")));
        assertThat(
                        rbac.allows(
                                new ApiCall(
                                        "system:serviceaccount:gpu-operator:other",
                                        "get",
                                        "",
                                        "nodes",
                                        null,
                                        null,
                                        "n1")))
                .isFalse();
        assertThat(
                        rbac.allows(
                                new ApiCall(
                                        "system:serviceaccount:other-ns:agent",
                                        "get",
                                        "",
                                        "nodes",
                                        null,
                                        null,
                                        "n1")))
                .isFalse();
    }

    @Test
    void wildcardsMatchAnyVerbGroupAndResource() {
        RbacEvaluator rbac = RbacEvaluator.of(clusterWide(rule(List.of("*"), List.of("*"), "*")));
        assertThat(rbac.allows(call("deletecollection", "apps", "daemonsets", "ns", null)))
                .isTrue();
        assertThat(rbac.allows(sub("get", "pods", "log", "ns", "p"))).isTrue();
    }

    @Test
    void aSubresourceNeedsItsOwnRuleOrASubresourceWildcard() {
        RbacEvaluator pods =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("pods"), "get")));
        assertThat(pods.allows(sub("get", "pods", "log", "ns", "p"))).isFalse();
        RbacEvaluator log =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("pods/log"), "get")));
        assertThat(log.allows(sub("get", "pods", "log", "ns", "p"))).isTrue();
        assertThat(log.allows(call("get", "", "pods", "ns", "p"))).isFalse();
        RbacEvaluator anySub =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("pods/*"), "get")));
        assertThat(anySub.allows(sub("get", "pods", "log", "ns", "p"))).isTrue();
        assertThat(anySub.allows(call("get", "", "pods", "ns", "p"))).isFalse();
        RbacEvaluator anyStatus =
                RbacEvaluator.of(clusterWide(rule(List.of(""), List.of("*/status"), "patch")));
        assertThat(anyStatus.allows(sub("patch", "nodes", "status", null, "n1"))).isTrue();
        assertThat(anyStatus.allows(sub("patch", "nodes", "proxy", null, "n1"))).isFalse();
    }

    @Test
    void resourceNamesRestrictCallsThatNameAnObjectOnly() {
        RbacEvaluator rbac =
                RbacEvaluator.of(
                        clusterWide(named("configmaps", List.of("cfg"), "get", "list", "create")));
        assertThat(rbac.allows(call("get", "", "configmaps", "ns", "cfg"))).isTrue();
        assertThat(rbac.allows(call("get", "", "configmaps", "ns", "other"))).isFalse();
        // a list names no object unless a metadata.name selector does; create never does
        assertThat(rbac.allows(call("list", "", "configmaps", "ns", null))).isFalse();
        assertThat(rbac.allows(call("list", "", "configmaps", "ns", "cfg"))).isTrue();
        assertThat(rbac.allows(call("create", "", "configmaps", "ns", null))).isFalse();
    }

    @Test
    void aRoleBindingGrantsInItsOwnNamespaceOnly() {
        RbacEvaluator rbac =
                RbacEvaluator.of(
                        inNamespace(
                                rule(
                                        List.of("nfd.k8s-sigs.io"),
                                        List.of("nodefeatures"),
                                        "create")));
        assertThat(rbac.allows(call("create", "nfd.k8s-sigs.io", "nodefeatures", NS, null)))
                .isTrue();
        assertThat(rbac.allows(call("create", "nfd.k8s-sigs.io", "nodefeatures", "default", null)))
                .isFalse();
        assertThat(rbac.allows(call("create", "nfd.k8s-sigs.io", "nodefeatures", null, null)))
                .isFalse();
    }

    @Test
    void aRoleBindingToAClusterRoleGrantsItsRulesInTheBindingsNamespace() {
        List<HasMetadata> objects =
                List.of(
                        new ClusterRoleBuilder()
                                .withNewMetadata()
                                .withName("view")
                                .endMetadata()
                                .withRules(rule(List.of(""), List.of("pods"), "list"))
                                .build(),
                        new RoleBindingBuilder()
                                .withNewMetadata()
                                .withName("b")
                                .withNamespace(NS)
                                .endMetadata()
                                .withNewRoleRef(RBAC, "ClusterRole", "view")
                                .addNewSubject()
                                .withKind("ServiceAccount")
                                .withName("agent")
                                .endSubject()
                                .build());
        RbacEvaluator rbac = RbacEvaluator.of(objects);
        // the subject's namespace defaults to the binding's
        assertThat(rbac.allows(call("list", "", "pods", NS, null))).isTrue();
        assertThat(rbac.allows(call("list", "", "pods", "default", null))).isFalse();
        assertThat(rbac.grants(SA)).extracting(Grant::role).containsExactly("ClusterRole/view");
    }

    @Test
    void aBindingToAMissingRoleGrantsNothing() {
        List<HasMetadata> objects =
                List.of(clusterWide(rule(List.of(""), List.of("nodes"), "get")).get(1));
        assertThat(RbacEvaluator.of(objects).grants(SA)).isEmpty();
    }

    @Test
    void aGroupSubjectIsRefusedByName() {
        List<HasMetadata> objects =
                List.of(
                        new ClusterRoleBindingBuilder()
                                .withNewMetadata()
                                .withName("b")
                                .endMetadata()
                                .withNewRoleRef(RBAC, "ClusterRole", "view")
                                .addNewSubject()
                                .withKind("Group")
                                .withName("system:nodes")
                                .endSubject()
                                .build());
        assertThatThrownBy(() -> RbacEvaluator.of(objects))
                .hasMessageContaining("Group system:nodes");
    }

    @Test
    void compareNamesTheCallsNoGrantAllowsAndTheGrantsNoCallUsed() {
        RbacEvaluator rbac =
                RbacEvaluator.of(
                        clusterWide(rule(List.of(""), List.of("nodes"), "get", "patch", "update")));
        ApiCall get = call("get", "", "nodes", null, "n1");
        ApiCall patch = call("patch", "", "nodes", null, "n1");
        ApiCall listPods = call("list", "", "pods", "ns", null);
        ApiCall someoneElse = new ApiCall("admin", "delete", "", "nodes", null, null, "n1");
        RbacEvaluator.Comparison c = rbac.compare(SA, Set.of(get, patch, listPods, someoneElse));
        assertThat(c.missing()).containsExactly(listPods);
        assertThat(c.unused()).extracting(Grant::verb).containsExactly("update");
        assertThat(c.unused().get(0).toString())
                .isEqualTo("ClusterRole/agent: update nodes (cluster-wide)");
        assertThat(c.exact()).isFalse();
        assertThat(
                        rbac.compare(
                                        SA,
                                        Set.of(get, patch, call("update", "", "nodes", null, "n2")))
                                .exact())
                .isTrue();
    }

    @Test
    void aGrantIsUsedPerVerbAndResourceEvenWhenItsRuleListsSeveral() {
        RbacEvaluator rbac =
                RbacEvaluator.of(
                        clusterWide(
                                rule(List.of("", "apps"), List.of("pods", "daemonsets"), "get")));
        RbacEvaluator.Comparison c = rbac.compare(SA, Set.of(call("get", "", "pods", "ns", "p")));
        assertThat(c.unused())
                .extracting(g -> g.apiGroup() + ":" + g.resource())
                .containsExactlyInAnyOrder(":daemonsets", "apps:pods", "apps:daemonsets");
    }

    @Test
    void anAgentWithoutGrantsAndWithoutCallsIsExact() {
        assertThat(RbacEvaluator.of(List.of()).compare(SA, Set.of()).exact()).isTrue();
    }
}
