package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.OperatorMetricsSpec;
import org.gpuoperator.api.v1.OperatorSpec;
import org.gpuoperator.api.v1.ServiceMonitorConfig;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PrometheusRule;
import org.gpuoperator.controller.operand.ServiceMonitor;
import org.junit.jupiter.api.Test;

/**
 * deploy/ renders with kubectl kustomize, installs everything, and grants the operator what it
 * hands on.
 */
class DeployManifestsTest {

    private static final Path DEPLOY = Path.of("..", "deploy");

    private static List<HasMetadata> kustomize() throws Exception {
        Path kubectl = Path.of("/usr/bin/kubectl");
        assumeTrue(Files.isExecutable(kubectl), "kubectl not installed");
        Process p =
                new ProcessBuilder(kubectl.toString(), "kustomize", DEPLOY.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        Object parsed = Serialization.unmarshal(out);
        return parsed instanceof KubernetesList l ? l.getItems() : (List<HasMetadata>) parsed;
    }

    @Test
    void kustomizeInstallsCrdsNamespaceRbacAndTheOperatorWithLeaderElection() throws Exception {
        List<HasMetadata> objects = kustomize();
        assertThat(objects)
                .extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .contains(
                        "CustomResourceDefinition/clusterpolicies.nvidia.com",
                        "CustomResourceDefinition/nvidiadrivers.nvidia.com",
                        "Namespace/gpu-operator",
                        "ServiceAccount/gpu-operator",
                        "ClusterRole/gpu-operator",
                        "ClusterRoleBinding/gpu-operator",
                        "Role/gpu-operator",
                        "RoleBinding/gpu-operator",
                        "Deployment/gpu-operator");
        Deployment d =
                objects.stream()
                        .filter(Deployment.class::isInstance)
                        .map(Deployment.class::cast)
                        .findFirst()
                        .orElseThrow();
        var c = d.getSpec().getTemplate().getSpec().getContainers().getFirst();
        assertThat(c.getImage()).contains("/operator-controller:");
        assertThat(c.getArgs()).contains("--leader-elect");
        assertThat(c.getEnv())
                .anySatisfy(e -> assertThat(e.getName()).isEqualTo("OPERATOR_NAMESPACE"));
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName())
                .isEqualTo("gpu-operator");
    }

    /** The rules of every ClusterRole among the manifests. */
    private static List<PolicyRule> clusterRoleRules(List<HasMetadata> objects) {
        return rulesOf(objects, ClusterRole.class, ClusterRole::getRules);
    }

    /** The rules of every (namespaced) Role among the manifests. */
    private static List<PolicyRule> roleRules(List<HasMetadata> objects) {
        return rulesOf(objects, Role.class, Role::getRules);
    }

    private static <R extends HasMetadata> List<PolicyRule> rulesOf(
            List<HasMetadata> objects,
            Class<R> kind,
            java.util.function.Function<R, List<PolicyRule>> rules) {
        return objects.stream()
                .filter(kind::isInstance)
                .map(kind::cast)
                .flatMap(r -> rules.apply(r).stream())
                .toList();
    }

    /**
     * Kubernetes refuses to create a role granting more than its creator holds: check we hold every
     * operand rule.
     */
    @Test
    void operatorHoldsEveryPermissionItGrantsToOperands() throws Exception {
        List<HasMetadata> objects = kustomize();
        List<PolicyRule> clusterRules = clusterRoleRules(objects);
        List<PolicyRule> namespaceRules = roleRules(objects);
        RenderedPolicy rendered = RenderedPolicy.defaults();
        for (Operand operand : Operand.values()) {
            for (HasMetadata o : rendered.desired().enabled().get(operand)) {
                if (o instanceof ClusterRole cr) {
                    cr.getRules().forEach(r -> assertCovered(r, clusterRules, operand));
                } else if (o instanceof Role role) {
                    role.getRules().forEach(r -> assertCovered(r, namespaceRules, operand));
                }
            }
        }
    }

    /**
     * What the controller applies and deletes, with every optional object on (the exporter's and
     * the operator's ServiceMonitors, the operator's PrometheusRule): the ResourceApplier's verbs
     * on each kind, namespaced ones from the Role or the ClusterRole.
     */
    @Test
    void operatorMayWriteEveryKindItApplies() throws Exception {
        List<HasMetadata> objects = kustomize();
        List<PolicyRule> clusterRules = clusterRoleRules(objects);
        List<PolicyRule> anyRules =
                java.util.stream.Stream.concat(clusterRules.stream(), roleRules(objects).stream())
                        .toList();
        ClusterPolicySpec spec = new ClusterPolicySpec();
        ServiceMonitorConfig on = new ServiceMonitorConfig();
        on.setEnabled(true);
        OperatorMetricsSpec metrics = new OperatorMetricsSpec();
        metrics.setServiceMonitor(on);
        OperatorSpec operator = new OperatorSpec();
        operator.setMetrics(metrics);
        spec.setOperator(operator);
        DcgmExporterSpec exporter = new DcgmExporterSpec();
        exporter.setServiceMonitor(on);
        spec.setDcgmExporter(exporter);
        RenderedPolicy rendered =
                RenderedPolicy.of(
                        ClusterPolicyDefaults.effective(spec),
                        PolicyFiles.defaultNodes(),
                        "gpu-operator",
                        Map.of());
        assertThat(rendered.errors()).isEmpty();
        List<Class<? extends HasMetadata>> kinds =
                new java.util.ArrayList<>(
                        rendered.desired().toApply().stream()
                                .<Class<? extends HasMetadata>>map(HasMetadata::getClass)
                                .distinct()
                                .toList());
        assertThat(kinds).contains(ServiceMonitor.class, PrometheusRule.class);
        for (Class<? extends HasMetadata> kind : kinds) {
            List<PolicyRule> held =
                    Namespaced.class.isAssignableFrom(kind) ? anyRules : clusterRules;
            String group = HasMetadata.getGroup(kind);
            String resource = HasMetadata.getPlural(kind);
            for (String verb : List.of("get", "create", "update", "delete")) {
                assertThat(held)
                        .as("the controller needs %s %s/%s", verb, group, resource)
                        .anyMatch(
                                h ->
                                        h.getApiGroups().contains(group)
                                                && h.getResources().contains(resource)
                                                && h.getVerbs().contains(verb));
            }
        }
    }

    /**
     * The driver upgrade: pods read cluster-wide, GPU pods evicted, the driver pod deleted, nodes
     * patched (state label, annotations, cordon).
     */
    @Test
    void operatorMayRunTheDriverUpgrade() throws Exception {
        List<PolicyRule> clusterRules =
                kustomize().stream()
                        .filter(ClusterRole.class::isInstance)
                        .map(ClusterRole.class::cast)
                        .flatMap(r -> r.getRules().stream())
                        .toList();
        for (String[] need :
                List.of(
                        new String[] {"pods", "list"},
                        new String[] {"pods", "watch"},
                        new String[] {"pods", "delete"},
                        new String[] {"pods/eviction", "create"},
                        new String[] {"nodes", "patch"})) {
            assertThat(clusterRules)
                    .as("driver upgrade needs " + need[1] + " " + need[0])
                    .anyMatch(
                            h ->
                                    h.getApiGroups().contains("")
                                            && h.getResources().contains(need[0])
                                            && h.getVerbs().contains(need[1]));
        }
        for (String verb : List.of("list", "watch")) {
            assertThat(clusterRules)
                    .as("driver upgrade reads the GPU pods' ResourceClaims: " + verb)
                    .anyMatch(
                            h ->
                                    h.getApiGroups().contains("resource.k8s.io")
                                            && h.getResources().contains("resourceclaims")
                                            && h.getVerbs().contains(verb));
        }
    }

    private static void assertCovered(PolicyRule wanted, List<PolicyRule> held, Operand operand) {
        for (String group : wanted.getApiGroups()) {
            for (String resource : wanted.getResources()) {
                for (String verb : wanted.getVerbs()) {
                    assertThat(held)
                            .as(operand.id() + " needs " + verb + " " + group + "/" + resource)
                            .anyMatch(
                                    h ->
                                            h.getApiGroups().contains(group)
                                                    && h.getResources().contains(resource)
                                                    && h.getVerbs().contains(verb));
                }
            }
        }
    }
}
