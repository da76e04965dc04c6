package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.simulate.HelmSequence.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Helm's install, upgrade and uninstall order, on hand-written objects and on the chart's. */
class HelmSequenceTest {

    static final Path REPO = RepoRoot.find();

    private static String object(String kind, String name, String hook, String weight) {
        String annotations =
                hook == null
                        ? ""
                        : "\n  annotations:\n    helm.sh/hook: "
                                + hook
                                + (weight == null
                                        ? ""
                                        : "\n    helm.sh/hook-weight: \"" + weight + "\"");
        return "---\napiVersion: v1\nkind: "
                + kind
                + "\nmetadata:\n  name: "
                + name
                + "\n  namespace: ns"
                + annotations
                + "\n";
    }

    private static List<String> keys(List<Manifest> ms) {
        return ms.stream().map(m -> m.kind() + "/" + m.name()).toList();
    }

    @Test
    void hooksRunByWeightThenNameAndKindsInInstallOrderWithinOne() throws Exception {
        List<Manifest> rendered =
                HelmSequence.parse(
                        object("Job", "b", "pre-upgrade", "1")
                                + object("ClusterRole", "b", "pre-upgrade", "0")
                                + object("ServiceAccount", "b", "pre-upgrade", "0")
                                + object("Job", "a", "pre-upgrade,pre-install", "1")
                                + object("ConfigMap", "a", "pre-upgrade", null)
                                + object("Job", "z", "pre-delete", "-5")
                                + object("Deployment", "op", null, null));
        assertThat(keys(HelmSequence.hooks(rendered, "pre-upgrade")))
                .containsExactly(
                        "ConfigMap/a", "ServiceAccount/b", "ClusterRole/b", "Job/a", "Job/b");
        assertThat(keys(HelmSequence.hooks(rendered, "pre-install"))).containsExactly("Job/a");
        assertThat(keys(HelmSequence.hooks(rendered, "pre-delete"))).containsExactly("Job/z");
        assertThat(keys(HelmSequence.release(rendered))).containsExactly("Deployment/op");
    }

    @Test
    void unknownKindsGoLastOnInstallAndOnUninstall() throws Exception {
        List<Manifest> release =
                HelmSequence.release(
                        HelmSequence.parse(
                                object("ClusterPolicy", "p", null, null)
                                        + object("Deployment", "op", null, null)
                                        + object("ServiceAccount", "sa", null, null)
                                        + object("ClusterRole", "r", null, null)));
        assertThat(keys(release))
                .containsExactly(
                        "ServiceAccount/sa", "ClusterRole/r", "Deployment/op", "ClusterPolicy/p");
        // without the chart's pre-delete hook, helm uninstall would delete the operator first
        assertThat(keys(HelmSequence.uninstall(release)))
                .containsExactly(
                        "Deployment/op", "ClusterRole/r", "ServiceAccount/sa", "ClusterPolicy/p");
    }

    @Test
    void anUpgradePatchesOnlyWhatTheChartChangedAndReplacesListsWhole() {
        Map<String, Object> old =
                Map.of(
                        "metadata", Map.of("name", "p", "labels", Map.of("a", "1", "b", "2")),
                        "spec",
                                Map.of(
                                        "tolerations",
                                        List.of(Map.of("key", "nvidia.com/gpu")),
                                        "replicas",
                                        1));
        assertThat(HelmSequence.mergePatch(old, old)).as("nothing changed: no patch").isEmpty();

        Map<String, Object> next =
                Map.of(
                        "metadata", Map.of("name", "p", "labels", Map.of("a", "1")),
                        "spec",
                                Map.of(
                                        "tolerations",
                                        List.of(
                                                Map.of("key", "nvidia.com/gpu"),
                                                Map.of("key", "other")),
                                        "replicas",
                                        1,
                                        "paused",
                                        true));
        Map<String, Object> patch = HelmSequence.mergePatch(old, next);
        Map<String, Object> labels = new java.util.HashMap<>();
        labels.put("b", null);
        assertThat(patch)
                .isEqualTo(
                        Map.of(
                                "metadata", Map.of("labels", labels),
                                "spec",
                                        Map.of(
                                                "tolerations",
                                                List.of(
                                                        Map.of("key", "nvidia.com/gpu"),
                                                        Map.of("key", "other")),
                                                "paused",
                                                true)));
    }

    @Test
    void anUpgradeDeletesWhatTheNewReleaseNoLongerRenders() throws Exception {
        List<Manifest> old =
                HelmSequence.parse(
                        object("Service", "m", null, null)
                                + object("Deployment", "op", null, null)
                                + object("ConfigMap", "c", null, null));
        List<Manifest> next =
                HelmSequence.parse(
                        object("Deployment", "op", null, null)
                                + object("Job", "h", "pre-upgrade", null)
                                + object("Secret", "s", null, null));
        assertThat(keys(HelmSequence.removedByUpgrade(old, next)))
                .containsExactly("Service/m", "ConfigMap/c");
    }

    @Test
    void aWeightThatIsNoIntegerFailsNamingTheObject() throws Exception {
        assertThatThrownBy(() -> HelmSequence.parse(object("Job", "j", "pre-delete", "first")))
                .hasMessageContaining("Job/ns/j")
                .hasMessageContaining("helm.sh/hook-weight \"first\"");
    }

    @Test
    void theChartsUpgradeAppliesTheCrdsAndItsUninstallDeletesThePoliciesBeforeTheOperator(
            @TempDir Path dir) throws Exception {
        ChartInstall chart = ChartInstall.of(REPO, List.of(), List.of());
        List<Manifest> rendered = HelmSequence.parse(chart.renderWithHooks("h100-80gb-x8", dir));
        assertThat(keys(HelmSequence.hooks(rendered, "pre-upgrade")))
                .containsExactly(
                        "ServiceAccount/gpu-operator-upgrade-crd",
                        "ConfigMap/gpu-operator-upgrade-crd",
                        "ClusterRole/gpu-operator-upgrade-crd",
                        "ClusterRoleBinding/gpu-operator-upgrade-crd",
                        "Job/gpu-operator-upgrade-crd");
        assertThat(keys(HelmSequence.hooks(rendered, "pre-delete")))
                .containsExactly(
                        "ServiceAccount/gpu-operator-cleanup",
                        "ClusterRole/gpu-operator-cleanup",
                        "ClusterRoleBinding/gpu-operator-cleanup",
                        "Job/gpu-operator-cleanup");
        // the release is what helm template (without hooks) renders
        assertThat(HelmSequence.release(rendered).stream().map(Manifest::key).sorted().toList())
                .isEqualTo(
                        HelmSequence.parse(chart.render("h100-80gb-x8", dir)).stream()
                                .map(Manifest::key)
                                .sorted()
                                .toList());
        List<String> uninstall = keys(HelmSequence.uninstall(HelmSequence.release(rendered)));
        // the policy would go last, after the operator: hence the chart's pre-delete hook
        assertThat(uninstall.indexOf("Deployment/gpu-operator"))
                .isNotNegative()
                .isLessThan(uninstall.indexOf("ClusterPolicy/cluster-policy"));
        assertThat(uninstall.getLast()).isEqualTo("ClusterPolicy/cluster-policy");
    }
}
