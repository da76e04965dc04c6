package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;

class DriverPoolPlanTest {

    private static final String NS = "gpu-operator";
    private final OperandModels models = new OperandModels(Map.of());
    private final PolicySettings policy = TestPolicies.allEnabled();

    static NVIDIADriver driver(String name, String version, Map<String, String> selector) {
        NVIDIADriver d = new NVIDIADriver();
        d.setMetadata(new ObjectMetaBuilder().withName(name).build());
        NVIDIADriverSpec spec = new NVIDIADriverSpec();
        spec.setVersion(version);
        if (selector == null) {
            spec.setDefaultDriver(true);
        } else {
            spec.setNodeSelector(selector);
        }
        d.setSpec(spec);
        return d;
    }

    static Node node(String name, String pool, String osImage, String kernel) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("pool", pool))
                .endMetadata()
                .withNewStatus()
                .withNewNodeInfo()
                .withOsImage(osImage)
                .withKernelVersion(kernel)
                .endNodeInfo()
                .endStatus()
                .build();
    }

    private static Map<String, String> env(DaemonSet ds) {
        Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
        return c.getEnv().stream()
                .filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue, (a, b) -> b));
    }

    @Test
    void oneDaemonSetPerDriverAndPoolWithItsVersionAndSelector() {
        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(
                                driver("a-driver", "550.54.15", Map.of("pool", "a")),
                                driver("b-driver", "570.172.08", Map.of("pool", "b"))),
                        List.of(
                                node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic"),
                                node("a2", "a", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic"),
                                node("b1", "b", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic"),
                                node("b2", "b", "Red Hat Enterprise Linux 9.4", "5.14.0-427")));

        assertThat(plan.errors()).isEmpty();
        assertThat(plan.pools())
                .extracting(DriverPools.Pool::driver, DriverPools.Pool::nodes)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("a-driver", List.of("a1", "a2")),
                        org.assertj.core.groups.Tuple.tuple("b-driver", List.of("b1")),
                        org.assertj.core.groups.Tuple.tuple("b-driver", List.of("b2")));
        assertThat(plan.daemonSets()).hasSize(3);
        DriverPools.Pool a = plan.poolsOf("a-driver").get(0);
        DaemonSet ds = plan.daemonSets().get(a.id());
        assertThat(ds.getMetadata().getName())
                .isEqualTo(a.daemonSetName())
                .startsWith("nvidia-gpu-driver-ubuntu22.04-");
        assertThat(ds.getMetadata().getNamespace()).isEqualTo(NS);
        assertThat(ds.getMetadata().getLabels()).containsEntry(DriverPools.POOL_LABEL, a.id());
        assertThat(ds.getMetadata().getAnnotations())
                .containsEntry(DriverPools.DRIVER_ANNOTATION, "a-driver");
        assertThat(ds.getSpec().getTemplate().getSpec().getNodeSelector())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                Operand.DRIVER.deployLabel(),
                                "true",
                                DriverPools.POOL_LABEL,
                                a.id(),
                                DriverPools.OWNER_LABEL,
                                "a-driver"));
        assertThat(ds.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> {
                            assertThat(o.getKind()).isEqualTo("NVIDIADriver");
                            assertThat(o.getApiVersion()).isEqualTo("nvidia.com/v1alpha1");
                            assertThat(o.getName()).isEqualTo("a-driver");
                            assertThat(o.getController()).isTrue();
                        });
        assertThat(ds.getSpec().getSelector().getMatchLabels())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                PodContract.APP_LABEL, Operand.DRIVER.daemonSetName(),
                                DriverPools.POOL_LABEL, a.id()));
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(ds.getSpec().getSelector().getMatchLabels())
                .containsEntry(PodContract.APP_NAME_LABEL, Operand.DRIVER.module());
        assertThat(ds.getSpec().getUpdateStrategy().getType()).isEqualTo("OnDelete");
        assertThat(env(ds)).containsEntry("DRIVER_VERSION", "550.54.15");
        assertThat(ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .isEqualTo("ghcr.io/gpu-operator/driver-agent:550.54.15");
        DaemonSet b = plan.daemonSets().get(plan.poolsOf("b-driver").get(0).id());
        assertThat(env(b)).containsEntry("DRIVER_VERSION", "570.172.08");

        assertThat(plan.routing().hashOfPool()).containsOnlyKeys(plan.daemonSets().keySet());
        assertThat(
                        plan.routing()
                                .poolOf(node("x", "a", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic")))
                .contains(a.id());
    }

    @Test
    void theDriversSettingsOverrideTheClusterPolicysOnItsDaemonSets() {
        NVIDIADriver d = driver("a-driver", "550.54.15", Map.of("pool", "a"));
        d.getSpec().setKernelModuleType(KernelModuleType.OPEN);
        d.getSpec().setPriorityClassName("gpu-critical");
        d.getSpec().setLabels(Map.of("team", "ml"));
        d.getSpec().setArgs(List.of("--verbose"));
        d.getSpec()
                .setTolerations(
                        List.of(
                                new TolerationBuilder()
                                        .withKey("dedicated")
                                        .withOperator("Exists")
                                        .build()));

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(d),
                        List.of(node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic")));

        DaemonSet ds = plan.daemonSets().values().iterator().next();
        var pod = ds.getSpec().getTemplate().getSpec();
        assertThat(env(ds)).containsEntry("KERNEL_MODULE_TYPE", "open");
        assertThat(pod.getPriorityClassName()).isEqualTo("gpu-critical");
        assertThat(pod.getTolerations()).extracting(t -> t.getKey()).containsExactly("dedicated");
        assertThat(pod.getContainers().get(0).getArgs()).containsExactly("--verbose");
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("team", "ml");
    }

    @Test
    void anInvalidDriverKeepsItsNodesButGetsNoDaemonSet() {
        NVIDIADriver bad = driver("bad", "550.54.15", Map.of("pool", "a"));
        DriverUpgradePolicySpec up = new DriverUpgradePolicySpec();
        up.setMaxParallelUpgrades(-1);
        bad.getSpec().setUpgradePolicy(up);

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(bad, driver("fallback", "570.172.08", null)),
                        List.of(
                                node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0"),
                                node("c1", "c", "Ubuntu 22.04.4 LTS", "5.15.0")));

        assertThat(plan.errors())
                .containsOnlyKeys("bad")
                .hasEntrySatisfying(
                        "bad",
                        e -> assertThat(e).startsWith("spec.upgradePolicy.maxParallelUpgrades"));
        assertThat(plan.assignment().driverOfNode()).containsEntry("a1", "bad");
        assertThat(plan.daemonSets().values())
                .extracting(
                        ds -> ds.getMetadata().getAnnotations().get(DriverPools.DRIVER_ANNOTATION))
                .containsExactly("fallback");
    }

    @Test
    void aVgpuDriverIsRefusedWithItsReasonRatherThanDeployedAsTheGpuDriver() {
        NVIDIADriver vgpu = driver("vgpu", "550.54.15", Map.of("pool", "a"));
        vgpu.getSpec().setDriverType(org.gpuoperator.api.v1alpha1.DriverType.VGPU);
        NVIDIADriver host = driver("host", "550.54.15", Map.of("pool", "c"));
        host.getSpec().setDriverType(org.gpuoperator.api.v1alpha1.DriverType.VGPU_HOST_MANAGER);
        NVIDIADriver gpu = driver("gpu", "550.54.15", Map.of("pool", "d"));
        gpu.getSpec().setDriverType(org.gpuoperator.api.v1alpha1.DriverType.GPU);

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(vgpu, host, gpu),
                        List.of(
                                node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0"),
                                node("c1", "c", "Ubuntu 22.04.4 LTS", "5.15.0"),
                                node("d1", "d", "Ubuntu 22.04.4 LTS", "5.15.0")));

        assertThat(plan.errors())
                .containsOnlyKeys("vgpu", "host")
                .containsEntry(
                        "vgpu",
                        "spec.driverType: vgpu is not supported by this operator yet (only gpu);"
                                + " refused rather than deployed as the GPU driver")
                .hasEntrySatisfying(
                        "host",
                        e -> assertThat(e).startsWith("spec.driverType: vgpu-host-manager"));
        assertThat(plan.daemonSets().values())
                .extracting(
                        ds -> ds.getMetadata().getAnnotations().get(DriverPools.DRIVER_ANNOTATION))
                .containsExactly("gpu");
    }

    @Test
    void aContestedNodeStaysInItsPoolSoItsDaemonSetStillSelectsIt() {
        Node a1 = node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        Node a2 = node("a2", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        String poolA = DriverPools.poolId("a-driver", NodeOs.of(a1));
        a1.getMetadata().setLabels(Map.of("pool", "a", DriverPools.POOL_LABEL, poolA));
        List<NVIDIADriver> drivers =
                List.of(
                        driver("a-driver", "550.54.15", Map.of("pool", "a")),
                        driver("everywhere", "570.172.08", Map.of()));

        var plan = DriverPoolPlan.of(models, policy, NS, drivers, List.of(a1, a2));

        // a1 had a-driver's pool: it keeps it; a2 had none and gets none
        assertThat(plan.assignment().driverOfNode()).containsExactly(Map.entry("a1", "a-driver"));
        assertThat(plan.routing().poolOf(a1)).contains(poolA);
        assertThat(plan.routing().poolOf(a2)).isEmpty();
        assertThat(plan.daemonSets()).containsOnlyKeys(poolA);
        assertThat(plan.daemonSets().get(poolA).getSpec().getTemplate().getSpec().getNodeSelector())
                .containsEntry(DriverPools.POOL_LABEL, poolA);
        assertThat(plan.assignment().conflicts()).containsOnlyKeys("a-driver", "everywhere");
    }

    @Test
    void anEarlierVersionsDaemonSetSelectsTheOwnerLabelOnceEachOfItsNodesCarriesIt() {
        Node a1 = node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        Node a2 = node("a2", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        List<NVIDIADriver> drivers = List.of(driver("a-driver", "550.54.15", Map.of("pool", "a")));
        String poolA = DriverPools.poolId("a-driver", NodeOs.of(a1));
        Map<String, String> existing = Map.of(poolA, "a-driver");

        // a2 not labelled yet: the DaemonSet controller would take its driver pod
        a1.getMetadata().setLabels(Map.of("pool", "a", DriverPools.OWNER_LABEL, "a-driver"));
        DaemonSet before =
                DriverPoolPlan.of(
                                models,
                                policy,
                                NS,
                                drivers,
                                List.of(a1, a2),
                                existing,
                                java.util.Set.of(poolA))
                        .daemonSets()
                        .get(poolA);
        assertThat(before.getSpec().getTemplate().getSpec().getNodeSelector())
                .doesNotContainKey(DriverPools.OWNER_LABEL);

        a2.getMetadata().setLabels(Map.of("pool", "a", DriverPools.OWNER_LABEL, "a-driver"));
        DaemonSet after =
                DriverPoolPlan.of(
                                models,
                                policy,
                                NS,
                                drivers,
                                List.of(a1, a2),
                                existing,
                                java.util.Set.of(poolA))
                        .daemonSets()
                        .get(poolA);
        assertThat(after.getSpec().getTemplate().getSpec().getNodeSelector())
                .containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(after.getSpec().getTemplate().getMetadata().getAnnotations())
                .as("the owner selector makes no driver pod outdated")
                .containsEntry(
                        PodContract.TEMPLATE_HASH_ANNOTATION,
                        before.getSpec()
                                .getTemplate()
                                .getMetadata()
                                .getAnnotations()
                                .get(PodContract.TEMPLATE_HASH_ANNOTATION));
    }

    @Test
    void aNodeSelectorNamingTheOwnerLabelIsRefusedAndKeepsTheNodesItHas() {
        Node a1 = node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        Node a2 = node("a2", "a", "Ubuntu 22.04.4 LTS", "5.15.0");
        String poolA = DriverPools.poolId("a-driver", NodeOs.of(a1));
        a1.getMetadata()
                .setLabels(
                        Map.of(
                                "pool",
                                "a",
                                DriverPools.POOL_LABEL,
                                poolA,
                                DriverPools.OWNER_LABEL,
                                "a-driver"));
        a2.getMetadata().setLabels(Map.of("pool", "a", DriverPools.OWNER_LABEL, "a-driver"));
        NVIDIADriver reserved =
                driver("a-driver", "550.54.15", Map.of(DriverPools.OWNER_LABEL, "a-driver"));

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(reserved, driver("fallback", "570.172.08", null)),
                        List.of(a1, a2),
                        Map.of(poolA, "a-driver"));

        assertThat(plan.errors())
                .containsOnlyKeys("a-driver")
                .hasEntrySatisfying(
                        "a-driver",
                        e ->
                                assertThat(e)
                                        .startsWith(
                                                "spec.nodeSelector: "
                                                        + DriverPools.OWNER_LABEL
                                                        + " is reserved"));
        // a1 was in its pool and stays; a2, not in it, is the default's
        assertThat(plan.assignment().driverOfNode())
                .containsExactly(Map.entry("a1", "a-driver"), Map.entry("a2", "fallback"));
        assertThat(plan.daemonSets().values())
                .extracting(
                        ds -> ds.getMetadata().getAnnotations().get(DriverPools.DRIVER_ANNOTATION))
                .containsExactly("fallback");
        assertThat(plan.routing().ownerOf(a1)).contains("a-driver");
    }

    @Test
    void aNameThatCannotBeALabelValueIsRefused() {
        String name = "d".repeat(64);
        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(driver(name, "550.54.15", Map.of("pool", "a"))),
                        List.of(node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0")));

        assertThat(plan.errors()).containsOnlyKeys(name);
        assertThat(plan.errors().get(name)).startsWith("metadata.name: longer than 63");
        assertThat(plan.daemonSets()).isEmpty();
        assertThat(plan.routing().ownerOf(node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0")))
                .as("no owner label it could not write")
                .isEmpty();
    }

    @Test
    void aDriversUpgradePolicyIsKeptForItsNodes() {
        NVIDIADriver d = driver("a-driver", "550.54.15", Map.of("pool", "a"));
        DriverUpgradePolicySpec up = new DriverUpgradePolicySpec();
        up.setAutoUpgrade(true);
        up.setMaxParallelUpgrades(3);
        d.getSpec().setUpgradePolicy(up);

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(d, driver("b", "1", Map.of("pool", "b"))),
                        List.of());

        assertThat(plan.upgradePolicies()).containsOnlyKeys("a-driver", "b");
        assertThat(plan.upgradePolicies().get("a-driver").maxParallelUpgrades()).isEqualTo(3);
        assertThat(plan.daemonSets()).isEmpty();
    }

    @Test
    void aDriverWithoutUpgradePolicyIsUpgradedUnderUpstreamsNvidiaDriverDefaults() {
        NVIDIADriver partial = driver("partial", "550.54.15", Map.of("pool", "a"));
        DriverUpgradePolicySpec up = new DriverUpgradePolicySpec();
        up.setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(2));
        partial.getSpec().setUpgradePolicy(up);
        NVIDIADriver bad = driver("bad", "550.54.15", Map.of("pool", "c"));
        DriverUpgradePolicySpec unreadable = new DriverUpgradePolicySpec();
        unreadable.setMaxParallelUpgrades(-1);
        bad.getSpec().setUpgradePolicy(unreadable);

        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(partial, bad, driver("plain", "570.172.08", Map.of("pool", "b"))),
                        List.of());

        // every NVIDIADriver has its policy: the ClusterPolicy's is never the fallback
        assertThat(plan.upgradePolicies()).containsOnlyKeys("partial", "bad", "plain");
        // upstream's NVIDIADriver defaults (GetUpgradePolicyWithDefaults): autoUpgrade true,
        // maxParallelUpgrades 1, maxUnavailable 25%, podDeletion {force false, 300 s, emptyDir
        // false}, waitForCompletion {no selector, 0 s}, drain {off, force false, no selector,
        // 300 s, emptyDir false}
        String defaults =
                "autoUpgrade true, maxParallelUpgrades 1, maxUnavailable 25%, podDeletion {force"
                        + " false, timeoutSeconds 300, deleteEmptyDir false}, waitForCompletion"
                        + " {podSelector '', timeoutSeconds 0}, drain {enable false, force false,"
                        + " podSelector '', timeoutSeconds 300, deleteEmptyDir false}";
        assertThat(plan.upgradePolicies().get("plain").describe()).isEqualTo(defaults);
        // a driver whose upgradePolicy cannot be read is refused; its nodes start no upgrade
        // (no new template hash), one mid-way ends under the defaults
        assertThat(plan.errors()).containsOnlyKeys("bad");
        assertThat(plan.upgradePolicies().get("bad").describe()).isEqualTo(defaults);
        // a field left unset takes the default, the others are the driver's
        assertThat(plan.upgradePolicies().get("partial").describe())
                .isEqualTo(defaults.replace("maxUnavailable 25%", "maxUnavailable 2"));
    }

    @Test
    void nvidiasDriverImageInAnNvidiaDriverRunsTheDriverAgentOfItsVersion() {
        NVIDIADriver upstream = driver("upstream", "580.95.05", Map.of("pool", "a"));
        upstream.getSpec().setRepository("nvcr.io/nvidia");
        upstream.getSpec().setImage("driver");
        NVIDIADriver mirror = driver("mirror", "570.172.08", Map.of("pool", "b"));
        mirror.getSpec().setRepository("registry.example.com/nvidia");
        mirror.getSpec().setImage("driver");
        var plan =
                DriverPoolPlan.of(
                        models,
                        policy,
                        NS,
                        List.of(upstream, mirror),
                        List.of(
                                node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic"),
                                node("b1", "b", "Ubuntu 22.04.4 LTS", "5.15.0-105-generic")));

        DaemonSet a = plan.daemonSets().get(plan.poolsOf("upstream").get(0).id());
        assertThat(a.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .isEqualTo(
                        org.gpuoperator.api.defaults.ClusterPolicyDefaults.REGISTRY
                                + "/driver-agent:580.95.05");
        assertThat(env(a)).containsEntry("DRIVER_VERSION", "580.95.05");
        // a mirror is not NVIDIA's: used as given
        DaemonSet b = plan.daemonSets().get(plan.poolsOf("mirror").get(0).id());
        assertThat(b.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
                .isEqualTo("registry.example.com/nvidia/driver:570.172.08");
        assertThat(NvidiaDriverSettings.upstreamImage(upstream.getSpec()))
                .hasValueSatisfying(
                        m ->
                                assertThat(m.replacement().message())
                                        .contains("nvcr.io/nvidia/driver:580.95.05")
                                        .contains("/driver-agent:580.95.05"));
        assertThat(NvidiaDriverSettings.upstreamImage(mirror.getSpec())).isEmpty();
    }
}
