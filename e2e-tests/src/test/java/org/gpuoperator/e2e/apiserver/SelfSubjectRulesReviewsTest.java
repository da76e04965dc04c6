package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelfSubjectRulesReviewsTest {

    static final Map<String, Object> REVIEW =
            Map.of(
                    "apiVersion", "authorization.k8s.io/v1",
                    "kind", "SelfSubjectRulesReview",
                    "spec", Map.of("namespace", "gpu-operator"));

    static Map<String, Object> binding(String roleKind, String role, String saNamespace) {
        return Map.of(
                "roleRef", Map.of("kind", roleKind, "name", role),
                "subjects",
                        List.of(
                                Map.of(
                                        "kind", "ServiceAccount",
                                        "name", "gpu-operator",
                                        "namespace", saNamespace)));
    }

    static Map<String, Object> role(Map<String, Object>... rules) {
        return Map.of("rules", List.of(rules));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aServiceAccountGetsTheRulesOfItsBindingsOnly() {
        Map<String, Object> leases =
                Map.of(
                        "apiGroups", List.of("coordination.k8s.io"),
                        "resources", List.of("leases"),
                        "verbs", List.of("get", "create", "update"));
        Map<String, Object> nodes =
                Map.of(
                        "apiGroups",
                        List.of(""),
                        "resources",
                        List.of("nodes"),
                        "verbs",
                        List.of("list"));
        Map<String, Object> secrets =
                Map.of(
                        "apiGroups",
                        List.of(""),
                        "resources",
                        List.of("secrets"),
                        "verbs",
                        List.of("*"));
        Map<String, Object> answer =
                SelfSubjectRulesReviews.answer(
                        REVIEW,
                        ServiceAccountTokens.user("gpu-operator", "gpu-operator"),
                        List.of(binding("Role", "operator", "gpu-operator")),
                        List.of(
                                binding("ClusterRole", "operator", "gpu-operator"),
                                binding("ClusterRole", "other", "elsewhere")),
                        Map.of("operator", role(leases)),
                        Map.of("operator", role(nodes), "other", role(secrets)));
        Map<String, Object> status = (Map<String, Object>) answer.get("status");
        assertThat((List<Object>) status.get("resourceRules")).containsExactly(nodes, leases);
        assertThat(status.get("incomplete")).isEqualTo(false);
        assertThat(answer.get("spec")).isEqualTo(REVIEW.get("spec"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theKubeconfigsUserIsTheAdmin() {
        Map<String, Object> status =
                (Map<String, Object>)
                        SelfSubjectRulesReviews.answer(
                                        REVIEW,
                                        "simulated",
                                        List.of(),
                                        List.of(),
                                        Map.of(),
                                        Map.of())
                                .get("status");
        assertThat((List<Map<String, Object>>) status.get("resourceRules"))
                .singleElement()
                .satisfies(r -> assertThat(r.get("verbs")).isEqualTo(List.of("*")));
    }
}
