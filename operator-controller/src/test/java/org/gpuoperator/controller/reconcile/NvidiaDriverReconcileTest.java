package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.reconcile.FakeCluster.NS;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriverState;
import org.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NVIDIADriver mode against the fabric8 mock API server in CRUD mode: two NVIDIADrivers for two
 * labelled node pools with different versions, then overlapping selectors. The test plays the
 * DaemonSet controller (a pod per selected node of each pool DaemonSet) and the kubelet.
 */
@EnableKubernetesMockClient(crud = true)
class NvidiaDriverReconcileTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String OLD = "550.54.15";
    private static final String NEW = "570.172.08";
    private static final String UBUNTU = "Ubuntu 22.04.4 LTS";
    private static final String KERNEL = "5.15.0-105-generic";

    KubernetesMockServer server;
    KubernetesClient client;

    private FakeCluster cluster;
    private ControllerRuntime runtime;

    @BeforeAll
    static void warmUpDeserializer() {
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Unknown\",\"metadata\":{\"name\":\"x\"}}");
    }

    @BeforeEach
    void start() throws Exception {
        client = FakeCluster.jdkClient(client);
        cluster = new FakeCluster(client, server);
        cluster.loadCrds();
        try (InputStream in =
                NVIDIADriver.class.getResourceAsStream(
                        "/META-INF/fabric8/nvidiadrivers.nvidia.com-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
        client.close();
    }

    @Test
    void
            twoDriversForTwoPoolsThenOverlappingSelectorsGiveTheConflictAndTheContestedNodeKeepsItsDriverPod() {
        node("gpu-a1", "pool", "a");
        node("gpu-a2", "pool", "a", "zone", "x");
        node("gpu-b1", "pool", "b", "zone", "x");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        client.resource(policy()).create();
        client.resource(nvidiaDriver("a-driver", OLD, Map.of("pool", "a"))).create();
        client.resource(nvidiaDriver("b-driver", NEW, Map.of("pool", "b"))).create();

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(poolDaemonSets()).hasSize(2);
                            assertThat(pool("gpu-a1")).isEqualTo("a-driver-ubuntu22.04");
                            assertThat(pool("gpu-a2")).isEqualTo(pool("gpu-a1"));
                            assertThat(pool("gpu-b1")).isEqualTo("b-driver-ubuntu22.04");
                        });
        String poolA = pool("gpu-a1");
        String poolB = pool("gpu-b1");
        DaemonSet dsA = poolDaemonSet(poolA).orElseThrow();
        DaemonSet dsB = poolDaemonSet(poolB).orElseThrow();
        assertThat(dsA.getMetadata().getName())
                .matches("nvidia-gpu-driver-ubuntu22\\.04-[0-9a-f]{10}");
        assertThat(dsB.getMetadata().getName())
                .matches("nvidia-gpu-driver-ubuntu22\\.04-[0-9a-f]{10}")
                .isNotEqualTo(dsA.getMetadata().getName());
        assertThat(driverVersion(dsA)).isEqualTo(OLD);
        assertThat(driverVersion(dsB)).isEqualTo(NEW);
        assertThat(dsA.getSpec().getTemplate().getSpec().getNodeSelector())
                .isEqualTo(
                        Map.of(
                                DRIVER.deployLabel(),
                                "true",
                                DriverPools.POOL_LABEL,
                                poolA,
                                DriverPools.OWNER_LABEL,
                                "a-driver"));
        assertThat(dsA.getMetadata().getOwnerReferences())
                .as("deleting the NVIDIADriver garbage-collects its DaemonSets")
                .singleElement()
                .satisfies(
                        o -> {
                            assertThat(o.getKind()).isEqualTo("NVIDIADriver");
                            assertThat(o.getName()).isEqualTo("a-driver");
                            assertThat(o.getUid())
                                    .isEqualTo(
                                            client.resources(NVIDIADriver.class)
                                                    .withName("a-driver")
                                                    .get()
                                                    .getMetadata()
                                                    .getUid());
                        });
        assertThat(cluster.labels("gpu-a2")).containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(cluster.labels("gpu-b1")).containsEntry(DriverPools.OWNER_LABEL, "b-driver");
        assertThat(cluster.daemonSet(DRIVER))
                .as("the ClusterPolicy's own driver DaemonSet")
                .isNull();

        // the kubelet: the pool pods come up, a's Ready, b's not yet
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            schedulePools();
                            assertThat(client.pods().inNamespace(NS).list().getItems())
                                    .hasSizeGreaterThanOrEqualTo(3);
                        });
        cluster.setReady(DRIVER, "gpu-a1", true);
        cluster.setReady(DRIVER, "gpu-a2", true);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(status("a-driver").getState())
                                    .isEqualTo(NVIDIADriverState.READY);
                            assertThat(status("a-driver").getNamespace()).isEqualTo(NS);
                            assertThat(condition("a-driver", "Ready").getStatus())
                                    .isEqualTo("True");
                            assertThat(status("b-driver").getState())
                                    .isEqualTo(NVIDIADriverState.NOT_READY);
                            assertThat(condition("b-driver", "Ready").getMessage())
                                    .isEqualTo("driver not ready on 1 of 1 node(s): gpu-b1");
                        });
        cluster.setReady(DRIVER, "gpu-b1", true);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("b-driver").getState())
                                        .isEqualTo(NVIDIADriverState.READY));

        // a new version for a's pool: its nodes' driver pods are outdated, b's are not; a's
        // upgradePolicy (autoUpgrade false) holds them
        client.resources(NVIDIADriver.class)
                .withName("a-driver")
                .edit(
                        d -> {
                            d.getSpec().setVersion(NEW);
                            return d;
                        });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(driverVersion(poolDaemonSet(poolA).orElseThrow()))
                                    .isEqualTo(NEW);
                            assertThat(
                                            client.resources(ClusterPolicy.class)
                                                    .withName("cluster-policy")
                                                    .get()
                                                    .getStatus()
                                                    .getDriverUpgrade()
                                                    .getLines())
                                    .containsExactly(
                                            "nvidiadriver a-driver: driver upgrade pending on 2"
                                                    + " node(s) (gpu-a1, gpu-a2):"
                                                    + " spec.upgradePolicy.autoUpgrade is"
                                                    + " false");
                        });

        // b now also selects gpu-a2: contested, so it keeps a's pool and its driver pod (fail
        // closed)
        String podA2 = DRIVER.daemonSetName() + "-gpu-a2";
        String podA2Uid =
                client.pods().inNamespace(NS).withName(podA2).get().getMetadata().getUid();
        client.resources(NVIDIADriver.class)
                .withName("b-driver")
                .edit(
                        d -> {
                            d.getSpec().setNodeSelector(Map.of("zone", "x"));
                            return d;
                        });
        String expected =
                "NVIDIADriver(s) [%s] also claim 1 node(s) (gpu-a2): each keeps the driver it had"
                        + " (none if it had none) until the conflict is resolved";
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (String d : List.of("a-driver", "b-driver")) {
                                Condition error = condition(d, "Error");
                                assertThat(error.getStatus()).as(d).isEqualTo("True");
                                assertThat(error.getReason()).isEqualTo("ConflictingNodeSelector");
                                assertThat(condition(d, "Ready").getReason())
                                        .isEqualTo("ConflictingNodeSelector");
                                assertThat(status(d).getState())
                                        .isEqualTo(NVIDIADriverState.NOT_READY);
                            }
                            assertThat(condition("a-driver", "Error").getMessage())
                                    .isEqualTo(expected.formatted("b-driver"));
                            assertThat(condition("b-driver", "Error").getMessage())
                                    .isEqualTo(expected.formatted("a-driver"));
                            // and a Warning Event on each
                            assertThat(conflictEvents("a-driver"))
                                    .singleElement()
                                    .satisfies(
                                            e -> {
                                                assertThat(e.getType()).isEqualTo("Warning");
                                                assertThat(e.getMessage())
                                                        .isEqualTo(expected.formatted("b-driver"));
                                            });
                            assertThat(conflictEvents("b-driver")).hasSize(1);
                        });
        assertThat(pool("gpu-a2")).isEqualTo(poolA);
        assertThat(cluster.labels("gpu-a2"))
                .as("the contested node keeps its owner")
                .containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(cluster.labels("gpu-a2"))
                .as("a's DaemonSet still selects the contested node")
                .containsAllEntriesOf(
                        poolDaemonSet(poolA)
                                .orElseThrow()
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getNodeSelector());
        assertThat(client.pods().inNamespace(NS).withName(podA2).get())
                .as("the contested node's driver pod")
                .satisfies(
                        p -> {
                            assertThat(p.getMetadata().getUid()).isEqualTo(podA2Uid);
                            assertThat(p.getMetadata().getDeletionTimestamp()).isNull();
                        });
        assertThat(pool("gpu-a1")).isEqualTo(poolA);
        assertThat(pool("gpu-b1")).isEqualTo(poolB);
        assertThat(poolDaemonSets()).hasSize(2);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                client.resources(ClusterPolicy.class)
                                                        .withName("cluster-policy")
                                                        .get()
                                                        .getStatus()
                                                        .getWarnings())
                                        .extracting(PolicyWarning::getPath)
                                        .contains(
                                                "nvidiadrivers/a-driver",
                                                "nvidiadrivers/b-driver"));
        // the conflict goes on (later reconciles, a node event): no second Event
        cluster.editNode(
                "gpu-b1",
                n -> {
                    n.getMetadata().getLabels().put("rack", "r1");
                    return n;
                });
        await().during(Duration.ofSeconds(3))
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> {
                            assertThat(conflictEvents("a-driver"))
                                    .singleElement()
                                    .extracting(e -> e.getCount())
                                    .isIn(null, 1);
                            assertThat(conflictEvents("b-driver")).hasSize(1);
                        });

        // a's selector no longer matches any node: the conflict is resolved, gpu-a2 moves to b
        // (by its pool label, as any node changing pools) and a's DaemonSet goes
        client.resources(NVIDIADriver.class)
                .withName("a-driver")
                .edit(
                        d -> {
                            d.getSpec().setNodeSelector(Map.of("pool", "none"));
                            return d;
                        });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(poolDaemonSet(poolA)).isEmpty();
                            assertThat(cluster.labels("gpu-a1"))
                                    .doesNotContainKey(DriverPools.POOL_LABEL);
                            assertThat(pool("gpu-a2")).isEqualTo(poolB);
                            assertThat(status("a-driver").getConditions())
                                    .noneMatch(
                                            c ->
                                                    "True".equals(c.getStatus())
                                                            && c.getType().equals("Error"));
                        });
    }

    @Test
    void aSecondDefaultChangesNoNodeAndBothStatusesSaySoUntilOneIsGone() {
        node("gpu-1");
        node("gpu-2");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        client.resource(policy()).create();
        client.resource(defaultDriver("d1", OLD)).create();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(pool("gpu-1")).isEqualTo("d1-ubuntu22.04");
                            assertThat(pool("gpu-2")).isEqualTo(pool("gpu-1"));
                            schedulePools();
                            assertThat(client.pods().inNamespace(NS).list().getItems()).hasSize(2);
                        });
        String poolD1 = pool("gpu-1");

        client.resource(defaultDriver("d2", NEW)).create();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (String d : List.of("d1", "d2")) {
                                Condition error = condition(d, "Error");
                                assertThat(error.getStatus()).as(d).isEqualTo("True");
                                assertThat(error.getReason()).isEqualTo("ConflictingNodeSelector");
                                assertThat(error.getMessage())
                                        .startsWith("multiple default NVIDIADrivers found: also [")
                                        .contains("also claim 2 node(s) (gpu-1, gpu-2)");
                            }
                        });
        assertThat(pool("gpu-1")).isEqualTo(poolD1);
        assertThat(pool("gpu-2")).isEqualTo(poolD1);
        assertThat(poolDaemonSets())
                .extracting(ds -> ds.getMetadata().getLabels().get(DriverPools.POOL_LABEL))
                .containsExactly(poolD1);
        assertThat(client.pods().inNamespace(NS).list().getItems())
                .as("the driver pods stay")
                .hasSize(2)
                .allSatisfy(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());

        // one default left: its nodes move to it as any node changing pools does
        client.resources(NVIDIADriver.class).withName("d1").delete();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(pool("gpu-1")).isEqualTo("d2-ubuntu22.04");
                            assertThat(pool("gpu-2")).isEqualTo(pool("gpu-1"));
                            assertThat(poolDaemonSet(poolD1)).isEmpty();
                            assertThat(condition("d2", "Error").getStatus()).isEqualTo("False");
                            assertThat(cluster.labels("gpu-1"))
                                    .containsEntry(DriverPools.OWNER_LABEL, "d2");
                        });

        // the policy deleted: our labels come off the nodes, the pools' DaemonSets go with it
        client.resources(ClusterPolicy.class).withName("cluster-policy").delete();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(poolDaemonSets()).isEmpty();
                            assertThat(cluster.labels("gpu-1"))
                                    .doesNotContainKeys(
                                            DriverPools.POOL_LABEL, DriverPools.OWNER_LABEL);
                        });
    }

    @Test
    void aPoolDaemonSetBeingDeletedIsDeletedOnceWhateverReconcilesFollow() throws Exception {
        node("gpu-a1", "pool", "a");
        node("gpu-b1", "pool", "b");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        client.resource(policy()).create();
        client.resource(nvidiaDriver("a-driver", OLD, Map.of("pool", "a"))).create();
        client.resource(nvidiaDriver("b-driver", OLD, Map.of("pool", "b"))).create();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(poolDaemonSets()).hasSize(2);
                            assertThat(pool("gpu-a1")).isEqualTo("a-driver-ubuntu22.04");
                            assertThat(pool("gpu-b1")).isEqualTo("b-driver-ubuntu22.04");
                        });
        String nameA = poolDaemonSet(pool("gpu-a1")).orElseThrow().getMetadata().getName();
        String poolB = pool("gpu-b1");
        // held as the API server's garbage collector holds one while it orphans or deletes its pods
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName(nameA)
                .edit(
                        ds -> {
                            ds.getMetadata().setFinalizers(List.of("example.com/hold"));
                            return ds;
                        });
        cluster.drainRequests();

        client.resources(NVIDIADriver.class).withName("a-driver").delete();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                client.apps()
                                                        .daemonSets()
                                                        .inNamespace(NS)
                                                        .withName(nameA)
                                                        .get()
                                                        .getMetadata()
                                                        .getDeletionTimestamp())
                                        .isNotNull());
        // reconciles after it: b's driver moves to another version twice, a node is relabelled
        for (String version : List.of(NEW, OLD)) {
            client.resources(NVIDIADriver.class)
                    .withName("b-driver")
                    .edit(
                            d -> {
                                d.getSpec().setVersion(version);
                                return d;
                            });
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(driverVersion(poolDaemonSet(poolB).orElseThrow()))
                                            .isEqualTo(version));
        }
        cluster.editNode(
                "gpu-a1",
                n -> {
                    n.getMetadata().getLabels().put("zone", "y");
                    return n;
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels("gpu-a1"))
                                        .doesNotContainKey(DriverPools.POOL_LABEL));

        assertThat(cluster.drainRequests())
                .filteredOn(r -> r.startsWith("DELETE ") && r.contains("/daemonsets/" + nameA))
                .hasSize(1);
    }

    @Test
    void anEarlierVersionsPoolDaemonSetGetsTheOwnerLabelAndItsNewOwnerWithoutOutdatingAPod() {
        node("gpu-1");
        node("gpu-2");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        client.resource(policy()).create();
        client.resource(defaultDriver("d1", OLD)).create();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(pool("gpu-2")).isEqualTo("d1-ubuntu22.04");
                            schedulePools();
                            assertThat(client.pods().inNamespace(NS).list().getItems()).hasSize(2);
                        });
        String pool = pool("gpu-1");
        DaemonSet ds = poolDaemonSet(pool).orElseThrow();
        String hash = templateHash(ds);
        List<String> podUids =
                client.pods().inNamespace(NS).list().getItems().stream()
                        .map(p -> p.getMetadata().getUid())
                        .toList();

        // as an earlier version left them: no owner label on the nodes nor in the DaemonSet's
        // nodeSelector, the DaemonSet the ClusterPolicy's
        runtime.close();
        runtime = null;
        ClusterPolicy policy =
                client.resources(ClusterPolicy.class).withName("cluster-policy").get();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName(ds.getMetadata().getName())
                .edit(
                        d -> {
                            d.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getNodeSelector()
                                    .remove(DriverPools.OWNER_LABEL);
                            d.getMetadata()
                                    .getAnnotations()
                                    .put(
                                            org.gpuoperator.controller.apply.ResourceApplier
                                                    .HASH_ANNOTATION,
                                            "earlier");
                            return org.gpuoperator.controller.apply.ResourceApplier.ownedBy(
                                    d, policy);
                        });
        for (String n : List.of("gpu-1", "gpu-2")) {
            cluster.editNode(
                    n,
                    node -> {
                        node.getMetadata().getLabels().remove(DriverPools.OWNER_LABEL);
                        return node;
                    });
        }

        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (String n : List.of("gpu-1", "gpu-2")) {
                                assertThat(cluster.labels(n))
                                        .containsEntry(DriverPools.OWNER_LABEL, "d1");
                            }
                            DaemonSet now = poolDaemonSet(pool).orElseThrow();
                            assertThat(now.getSpec().getTemplate().getSpec().getNodeSelector())
                                    .containsEntry(DriverPools.OWNER_LABEL, "d1");
                            assertThat(now.getMetadata().getOwnerReferences())
                                    .extracting(o -> o.getKind())
                                    .containsExactly("NVIDIADriver");
                            assertThat(templateHash(now)).isEqualTo(hash);
                        });
        assertThat(client.pods().inNamespace(NS).list().getItems())
                .as("the driver pods stay, none outdated")
                .allSatisfy(
                        p -> {
                            assertThat(p.getMetadata().getDeletionTimestamp()).isNull();
                            assertThat(templateHash(p.getMetadata().getAnnotations()))
                                    .isEqualTo(hash);
                        })
                .extracting(p -> p.getMetadata().getUid())
                .containsExactlyInAnyOrderElementsOf(podUids);
    }

    private static String templateHash(DaemonSet ds) {
        return templateHash(ds.getSpec().getTemplate().getMetadata().getAnnotations());
    }

    private static String templateHash(Map<String, String> annotations) {
        return annotations.get(
                org.gpuoperator.controller.operand.PodContract.TEMPLATE_HASH_ANNOTATION);
    }

    @Test
    void anEditThatDoesNotValidateKeepsTheDriversDaemonSetAndPodsAndSaysWhy() {
        node("gpu-1");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        client.resource(policy()).create();
        client.resource(defaultDriver("d1", OLD)).create();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(pool("gpu-1")).isEqualTo("d1-ubuntu22.04");
                            schedulePools();
                            assertThat(client.pods().inNamespace(NS).list().getItems()).hasSize(1);
                        });
        String pool = pool("gpu-1");
        DaemonSet before = poolDaemonSet(pool).orElseThrow();

        // an admin's typo: the upgrade policy no longer reads (read again on a conflict with the
        // controller's status write)
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(
                        () -> {
                            client.resources(NVIDIADriver.class)
                                    .withName("d1")
                                    .edit(
                                            d -> {
                                                var up =
                                                        new org.gpuoperator.api.common
                                                                .DriverUpgradePolicySpec();
                                                up.setMaxUnavailable(
                                                        new io.fabric8.kubernetes.api.model
                                                                .IntOrString("lots"));
                                                d.getSpec().setUpgradePolicy(up);
                                                d.getSpec().setVersion(NEW);
                                                return d;
                                            });
                            return true;
                        });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Condition error = condition("d1", "Error");
                            assertThat(error.getStatus()).isEqualTo("True");
                            assertThat(error.getReason()).isEqualTo("InvalidSpec");
                            assertThat(error.getMessage())
                                    .contains("maxUnavailable: 'lots'")
                                    .endsWith(
                                            "driver DaemonSets it already has are kept as they"
                                                    + " are until the spec is valid");
                        });
        // fail closed: the DaemonSet, unchanged, and its pod stay; the node keeps its pool
        DaemonSet after = poolDaemonSet(pool).orElseThrow();
        assertThat(after.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
        assertThat(driverVersion(after)).isEqualTo(OLD);
        assertThat(pool("gpu-1")).isEqualTo(pool);
        assertThat(client.pods().inNamespace(NS).list().getItems())
                .hasSize(1)
                .allSatisfy(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());
    }

    // ---- helpers

    private static NVIDIADriver defaultDriver(String name, String version) {
        NVIDIADriver d = nvidiaDriver(name, version, null);
        d.getSpec().setDefaultDriver(true);
        return d;
    }

    private void node(String name, String... labels) {
        cluster.gpuNode(name, "containerd://1.7.20");
        cluster.editNode(
                name,
                n -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        n.getMetadata().getLabels().put(labels[i], labels[i + 1]);
                    }
                    return n;
                });
        client.nodes()
                .withName(name)
                .editStatus(
                        n ->
                                new NodeBuilder(n)
                                        .editStatus()
                                        .editNodeInfo()
                                        .withOsImage(UBUNTU)
                                        .withKernelVersion(KERNEL)
                                        .endNodeInfo()
                                        .endStatus()
                                        .build());
    }

    private static ClusterPolicy policy() {
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
        ClusterPolicySpec spec = new ClusterPolicySpec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("t4-x1");
        spec.setSimulation(sim);
        DriverSpec driver = new DriverSpec();
        driver.setUseNvidiaDriverCRD(true);
        spec.setDriver(driver);
        p.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
        return p;
    }

    private static NVIDIADriver nvidiaDriver(
            String name, String version, Map<String, String> selector) {
        NVIDIADriver d = new NVIDIADriver();
        d.setMetadata(new ObjectMetaBuilder().withName(name).build());
        NVIDIADriverSpec spec = new NVIDIADriverSpec();
        spec.setVersion(version);
        spec.setNodeSelector(selector);
        // these scenarios are about assignment and pools, not upgrades: without an upgradePolicy
        // an NVIDIADriver's nodes would upgrade under upstream's default autoUpgrade true
        var upgrade = new org.gpuoperator.api.common.DriverUpgradePolicySpec();
        upgrade.setAutoUpgrade(false);
        spec.setUpgradePolicy(upgrade);
        d.setSpec(spec);
        return d;
    }

    private String pool(String node) {
        return cluster.labels(node).get(DriverPools.POOL_LABEL);
    }

    private List<DaemonSet> poolDaemonSets() {
        return client.apps().daemonSets().inNamespace(NS).list().getItems().stream()
                .filter(ds -> ds.getMetadata().getLabels().containsKey(DriverPools.POOL_LABEL))
                .toList();
    }

    private Optional<DaemonSet> poolDaemonSet(String pool) {
        return poolDaemonSets().stream()
                .filter(ds -> pool.equals(ds.getMetadata().getLabels().get(DriverPools.POOL_LABEL)))
                .findFirst();
    }

    private static String driverVersion(DaemonSet ds) {
        return ds.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("DRIVER_VERSION"))
                .map(EnvVar::getValue)
                .findFirst()
                .orElse(null);
    }

    /** The ConflictingNodeSelector Events about the NVIDIADriver. */
    private List<io.fabric8.kubernetes.api.model.Event> conflictEvents(String driver) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(
                        e ->
                                "NVIDIADriver".equals(e.getInvolvedObject().getKind())
                                        && driver.equals(e.getInvolvedObject().getName())
                                        && "ConflictingNodeSelector".equals(e.getReason()))
                .toList();
    }

    private NVIDIADriverStatus status(String driver) {
        return client.resources(NVIDIADriver.class).withName(driver).get().getStatus();
    }

    private Condition condition(String driver, String type) {
        return status(driver).getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    /**
     * As the DaemonSet controller: a (not yet Ready) pod of each pool DaemonSet on every node it
     * selects and that has no driver pod; named as the ClusterPolicy's driver pods are here.
     */
    private void schedulePools() {
        for (DaemonSet ds : poolDaemonSets()) {
            Map<String, String> selector = ds.getSpec().getTemplate().getSpec().getNodeSelector();
            for (Node node : client.nodes().list().getItems()) {
                Map<String, String> labels = node.getMetadata().getLabels();
                boolean matches =
                        selector.entrySet().stream()
                                .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
                String podName = DRIVER.daemonSetName() + "-" + node.getMetadata().getName();
                if (matches && client.pods().inNamespace(NS).withName(podName).get() == null) {
                    client.pods()
                            .inNamespace(NS)
                            .resource(
                                    new PodBuilder()
                                            .withNewMetadata()
                                            .withName(podName)
                                            .withNamespace(NS)
                                            .withLabels(
                                                    ds.getSpec()
                                                            .getTemplate()
                                                            .getMetadata()
                                                            .getLabels())
                                            .withAnnotations(
                                                    ds.getSpec()
                                                            .getTemplate()
                                                            .getMetadata()
                                                            .getAnnotations())
                                            .addNewOwnerReference()
                                            .withApiVersion("apps/v1")
                                            .withKind("DaemonSet")
                                            .withName(ds.getMetadata().getName())
                                            .withUid("uid-" + ds.getMetadata().getName())
                                            .withController(true)
                                            .endOwnerReference()
                                            .endMetadata()
                                            .withSpec(ds.getSpec().getTemplate().getSpec())
                                            .editSpec()
                                            .withNodeName(node.getMetadata().getName())
                                            .endSpec()
                                            .withNewStatus()
                                            .withPhase("Running")
                                            .withConditions(
                                                    new PodConditionBuilder()
                                                            .withType("Ready")
                                                            .withStatus("False")
                                                            .build())
                                            .endStatus()
                                            .build())
                            .create();
                }
            }
        }
    }
}
