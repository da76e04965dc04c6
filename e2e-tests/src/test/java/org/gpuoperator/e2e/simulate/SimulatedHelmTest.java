package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.gpuoperator.e2e.cluster.ApiServer;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.HelmSequence.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SimulatedHelm} on a bare simulated API server (no nodes, no operator), with the chart's
 * real hooks and the real kubectl: the upgrade's hook Job applies the new CRD before the operator's
 * Deployment changes and keeps the policy's finalizer; the uninstall's hook Job deletes the policy
 * while the operator's Deployment is still there (a watcher plays the operator's finalizer). The
 * real operator's cleanup during the hook's wait is {@link HelmUpgradeUninstallIT}'s.
 */
class SimulatedHelmTest {

    static final Path REPO = RepoRoot.find();
    static final String FINALIZER = "nvidia.com/gpu-operator-node-labels";

    @Test
    void upgradeAppliesTheNewCrdAndUninstallDeletesThePolicyWhileTheOperatorRuns(@TempDir Path dir)
            throws Exception {
        assumeTrue(Files.isExecutable(SimulatedHelm.KUBECTL), "hook Jobs run /usr/bin/kubectl");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (ApiServer api =
                ApiServer.start(REPO.resolve("deploy/crds"), dir, SimulatedCluster.NAMESPACE)) {
            KubernetesClient client = api.client();
            client.namespaces()
                    .resource(
                            new NamespaceBuilder()
                                    .withNewMetadata()
                                    .withName(SimulatedCluster.NAMESPACE)
                                    .endMetadata()
                                    .build())
                    .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
            SimulatedHelm helm = new SimulatedHelm(api.kubeconfig(), dir, events::add);
            String v1 = ChartInstall.of(REPO, List.of(), List.of()).renderWithHooks("t4-x1", dir);
            String v2 =
                    new ChartInstall(ChartVersions.v020(dir), List.of(), List.of())
                            .renderWithHooks("t4-x1", dir);

            helm.install(v1);
            assertThat(crdHasNewField(client)).isFalse();
            var policies = client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES);
            policies.withName("cluster-policy")
                    .edit(
                            p -> {
                                p.getMetadata().setFinalizers(new ArrayList<>(List.of(FINALIZER)));
                                return p;
                            });

            helm.upgrade(v1, v2);
            assertThat(crdHasNewField(client)).as(String.join("\n", events)).isTrue();
            assertThat(
                            client.apps()
                                    .deployments()
                                    .inNamespace(SimulatedCluster.NAMESPACE)
                                    .withName("gpu-operator")
                                    .get()
                                    .getSpec()
                                    .getTemplate()
                                    .getMetadata()
                                    .getAnnotations())
                    .containsEntry(ChartVersions.VERSION_ANNOTATION, "0.2.0");
            assertThat(
                            client.services()
                                    .inNamespace(SimulatedCluster.NAMESPACE)
                                    .withName("gpu-operator")
                                    .get())
                    .isNull();
            assertThat(policies.withName("cluster-policy").get().getMetadata().getFinalizers())
                    .as("the upgrade patched the policy, keeping the operator's finalizer")
                    .containsExactly(FINALIZER);
            for (Manifest hook : HelmSequence.hooks(HelmSequence.parse(v2), "pre-upgrade")) {
                assertThat(exists(client, hook)).as(hook.key()).isFalse();
            }
            int hookEvent = indexOf(events, "hook Job/gpu-operator/gpu-operator-upgrade-crd");
            assertThat(hookEvent)
                    .as("CRDs first, then the operator: %s", events)
                    .isNotNegative()
                    .isLessThan(indexOf(events, "helm upgrade: applied Deployment/"));

            // The watcher plays the operator: it drops its finalizer as soon as the policy is
            // being deleted, before the hook's kubectl delete --wait may have opened its watch
            // (the API server replays the deletion to it: once, that wait hung here)
            List<String> operatorSaw = Collections.synchronizedList(new ArrayList<>());
            Watch operator =
                    policies.watch(
                            new Watcher<>() {
                                @Override
                                public void eventReceived(
                                        Action action, GenericKubernetesResource p) {
                                    if (action == Action.MODIFIED
                                            && p.getMetadata().getDeletionTimestamp() != null
                                            && !p.getMetadata().getFinalizers().isEmpty()) {
                                        policies.withName("cluster-policy")
                                                .edit(
                                                        q -> {
                                                            q.getMetadata()
                                                                    .setFinalizers(List.of());
                                                            return q;
                                                        });
                                    }
                                    if (action == Action.DELETED) {
                                        boolean there =
                                                client.apps()
                                                                .deployments()
                                                                .inNamespace(
                                                                        SimulatedCluster.NAMESPACE)
                                                                .withName("gpu-operator")
                                                                .get()
                                                        != null;
                                        operatorSaw.add(
                                                "policy deleted, operator Deployment "
                                                        + (there ? "there" : "gone"));
                                    }
                                }

                                @Override
                                public void onClose(WatcherException cause) {}
                            });
            try {
                helm.uninstall(v2);
            } finally {
                operator.close();
            }
            assertThat(operatorSaw)
                    .as(String.join("\n", events))
                    .containsExactly("policy deleted, operator Deployment there");
            for (Manifest m : HelmSequence.parse(v2)) {
                assertThat(exists(client, m)).as(m.key() + " after uninstall").isFalse();
            }
            assertThat(indexOf(events, "hook Job/gpu-operator/gpu-operator-cleanup"))
                    .isNotNegative()
                    .isLessThan(indexOf(events, "helm uninstall: deleted Deployment/"));
        }
    }

    private static int indexOf(List<String> events, String prefix) {
        synchronized (events) {
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).startsWith(prefix)) {
                    return i;
                }
            }
        }
        return -1;
    }

    private static boolean crdHasNewField(KubernetesClient client) {
        CustomResourceDefinition crd =
                client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName(ChartVersions.CRD)
                        .get();
        return crd.getSpec().getVersions().stream()
                .allMatch(
                        v ->
                                v.getSchema()
                                        .getOpenAPIV3Schema()
                                        .getProperties()
                                        .get("spec")
                                        .getProperties()
                                        .containsKey(ChartVersions.NEW_FIELD));
    }

    static boolean exists(KubernetesClient client, Manifest m) {
        if (m.kind().equals("ClusterPolicy")) {
            return client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                            .withName(m.name())
                            .get()
                    != null;
        }
        HasMetadata o = Serialization.unmarshal(Serialization.asJson(m.object()));
        return client.resource(o).get() != null;
    }
}
