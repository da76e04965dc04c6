package org.gpuoperator.controller.nodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DCGM_EXPORTER;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.operand.Operand.GPU_FEATURE_DISCOVERY;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

class NodeGateTest {

    private static final String SIM = "gpuoperator.org/simulated-gpu";

    /** The pipeline; the validator's own gate is in ValidatorGateTest. */
    private static final Set<Operand> ALL = EnumSet.complementOf(EnumSet.of(Operand.VALIDATOR));

    private static NodePlan plan(
            Map<String, String> labels, Set<Operand> ready, Set<Operand> enabled) {
        return NodeGate.plan(new NodeView("n1", labels, ready), enabled, SIM);
    }

    private static Map<String, String> labels(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void newNfdGpuNodeGetsPresentAndDriverLabelInOneChange() {
        NodePlan p =
                plan(labels("feature.node.kubernetes.io/pci-10de.present", "true"), Set.of(), ALL);
        assertThat(p.gpuNode()).isTrue();
        assertThat(p.labelChanges())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("nvidia.com/gpu.present", "true", DRIVER.deployLabel(), "true"));
        assertThat(p.stuckAt()).isEqualTo(DRIVER);
    }

    @Test
    void nfdClassVariantsAndSimulatedMarkerAreGpuNodes() {
        assertThat(
                        NodeLabels.isGpuNode(
                                labels("feature.node.kubernetes.io/pci-0300_10de.present", "true"),
                                SIM))
                .isTrue();
        assertThat(
                        NodeLabels.isGpuNode(
                                labels("feature.node.kubernetes.io/pci-0302_10de.present", "true"),
                                SIM))
                .isTrue();
        assertThat(NodeLabels.isGpuNode(labels(SIM, "true"), SIM)).isTrue();
        assertThat(NodeLabels.isGpuNode(labels(SIM, "true"), "other/label")).isFalse();
        assertThat(
                        NodeLabels.isGpuNode(
                                labels("feature.node.kubernetes.io/pci-8086.present", "true"), SIM))
                .isFalse();
    }

    @Test
    void cpuNodeGetsNothing() {
        NodePlan p = plan(labels("kubernetes.io/os", "linux"), Set.of(), ALL);
        assertThat(p.gpuNode()).isFalse();
        assertThat(p.hasChanges()).isFalse();
        assertThat(p.stuckAt()).isNull();
    }

    @Test
    void gatesOpenInPipelineOrder() {
        Map<String, String> l =
                labels(SIM, "true", "nvidia.com/gpu.present", "true", DRIVER.deployLabel(), "true");
        assertThat(plan(l, Set.of(), ALL).labelChanges()).isEmpty();

        NodePlan afterDriver = plan(l, Set.of(DRIVER), ALL);
        assertThat(afterDriver.labelChanges())
                .containsExactly(Map.entry(CONTAINER_TOOLKIT.deployLabel(), "true"));
        assertThat(afterDriver.stuckAt()).isEqualTo(CONTAINER_TOOLKIT);

        l.put(CONTAINER_TOOLKIT.deployLabel(), "true");
        assertThat(plan(l, Set.of(DRIVER, CONTAINER_TOOLKIT), ALL).labelChanges())
                .containsExactly(Map.entry(DEVICE_PLUGIN.deployLabel(), "true"));

        l.put(DEVICE_PLUGIN.deployLabel(), "true");
        assertThat(plan(l, Set.of(DRIVER, CONTAINER_TOOLKIT, DEVICE_PLUGIN), ALL).labelChanges())
                .containsOnlyKeys(GPU_FEATURE_DISCOVERY.deployLabel(), DCGM_EXPORTER.deployLabel());

        l.put(GPU_FEATURE_DISCOVERY.deployLabel(), "true");
        l.put(DCGM_EXPORTER.deployLabel(), "true");
        NodePlan done = plan(l, ALL, ALL);
        assertThat(done.hasChanges()).isFalse();
        assertThat(done.stuckAt()).isNull();
    }

    @Test
    void unreadyDriverHoldsTheNodeAtItsGateWithoutRemovingLabels() {
        Map<String, String> l =
                labels(
                        SIM,
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "true",
                        CONTAINER_TOOLKIT.deployLabel(),
                        "true");
        NodePlan p = plan(l, Set.of(CONTAINER_TOOLKIT), ALL);
        assertThat(p.hasChanges()).isFalse();
        assertThat(p.stuckAt()).isEqualTo(DRIVER);
    }

    @Test
    void driverDisabledOrPreInstalledCountsAsDone() {
        Map<String, String> l = labels(SIM, "true", "nvidia.com/gpu.present", "true");
        NodePlan disabled =
                plan(l, Set.of(), EnumSet.complementOf(EnumSet.of(DRIVER, Operand.VALIDATOR)));
        assertThat(disabled.labelChanges())
                .containsExactly(Map.entry(CONTAINER_TOOLKIT.deployLabel(), "true"));

        l.put(DRIVER.deployLabel(), "pre-installed");
        NodePlan preInstalled = plan(l, Set.of(), ALL);
        assertThat(preInstalled.labelChanges())
                .containsExactly(Map.entry(CONTAINER_TOOLKIT.deployLabel(), "true"));
        assertThat(preInstalled.stuckAt()).isEqualTo(CONTAINER_TOOLKIT);
    }

    @Test
    void optOutRemovesOurDeployLabelsButKeepsForeignValues() {
        Map<String, String> l =
                labels(
                        SIM,
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        "nvidia.com/gpu.deploy.operands",
                        "false",
                        DRIVER.deployLabel(),
                        "pre-installed",
                        CONTAINER_TOOLKIT.deployLabel(),
                        "true",
                        DEVICE_PLUGIN.deployLabel(),
                        "true");
        NodePlan p = plan(l, ALL, ALL);
        assertThat(p.optedOut()).isTrue();
        Map<String, String> expected = new HashMap<>();
        expected.put(CONTAINER_TOOLKIT.deployLabel(), null);
        expected.put(DEVICE_PLUGIN.deployLabel(), null);
        assertThat(p.labelChanges()).isEqualTo(expected);
    }

    @Test
    void foreignValueIsNeverOverwritten() {
        Map<String, String> l =
                labels(
                        SIM,
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "paused-for-driver-upgrade");
        NodePlan p = plan(l, Set.of(), ALL);
        assertThat(p.hasChanges()).isFalse();
        assertThat(p.stuckAt()).isEqualTo(DRIVER);
    }

    @Test
    void disabledOperandLabelComesOff() {
        Map<String, String> l =
                labels(
                        SIM,
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        DCGM_EXPORTER.deployLabel(),
                        "true");
        Set<Operand> enabled = EnumSet.complementOf(EnumSet.of(DCGM_EXPORTER, Operand.VALIDATOR));
        Map<String, String> expected = new HashMap<>();
        expected.put(DCGM_EXPORTER.deployLabel(), null);
        expected.put(DRIVER.deployLabel(), "true");
        assertThat(plan(l, Set.of(), enabled).labelChanges()).isEqualTo(expected);
    }

    @Test
    void nodeThatStopsBeingAGpuNodeLosesOurLabelsOnly() {
        Map<String, String> l =
                labels(
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "true",
                        CONTAINER_TOOLKIT.deployLabel(),
                        "false",
                        DEVICE_PLUGIN.deployLabel(),
                        "paused-for-driver-upgrade");
        NodePlan p = plan(l, Set.of(), ALL);
        Map<String, String> expected = new HashMap<>();
        expected.put("nvidia.com/gpu.present", null);
        expected.put(DRIVER.deployLabel(), null);
        expected.put(DEVICE_PLUGIN.deployLabel(), null); // our driver upgrade's pause
        assertThat(p.labelChanges()).isEqualTo(expected);
    }

    @Test
    void aPauseForADriverUpgradeIsTheUpgradesToLiftUnlessNoDriverIsManagedAnyMore() {
        Map<String, String> l =
                labels(
                        "feature.node.kubernetes.io/pci-10de.present",
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "true",
                        CONTAINER_TOOLKIT.deployLabel(),
                        "true",
                        DEVICE_PLUGIN.deployLabel(),
                        "paused-for-driver-upgrade");
        Set<Operand> ready = Set.of(DRIVER, CONTAINER_TOOLKIT);
        assertThat(plan(l, ready, ALL).labelChanges())
                .doesNotContainKey(DEVICE_PLUGIN.deployLabel());

        Set<Operand> withoutDriver = new HashSet<>(ALL);
        withoutDriver.remove(DRIVER);
        assertThat(plan(l, Set.of(CONTAINER_TOOLKIT), withoutDriver).labelChanges())
                .containsEntry(DEVICE_PLUGIN.deployLabel(), "true");
    }

    @Test
    void theMigManagerGoesOnlyWhereFeatureDiscoveryFoundMigCapableGpus() {
        Map<String, String> l =
                labels(
                        SIM,
                        "true",
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "true",
                        CONTAINER_TOOLKIT.deployLabel(),
                        "true",
                        DEVICE_PLUGIN.deployLabel(),
                        "true",
                        GPU_FEATURE_DISCOVERY.deployLabel(),
                        "true",
                        DCGM_EXPORTER.deployLabel(),
                        "true");
        Set<Operand> ready =
                Set.of(
                        DRIVER,
                        CONTAINER_TOOLKIT,
                        DEVICE_PLUGIN,
                        GPU_FEATURE_DISCOVERY,
                        DCGM_EXPORTER);
        // no MIG-capable GPU: nothing to deploy, and the node is not held at it
        NodePlan noMig = plan(l, ready, ALL);
        assertThat(noMig.labelChanges()).isEmpty();
        assertThat(noMig.stuckAt()).isNull();

        l.put(Operand.MIG_CAPABLE_LABEL, "true");
        NodePlan mig = plan(l, ready, ALL);
        assertThat(mig.labelChanges())
                .containsExactly(Map.entry(Operand.MIG_MANAGER.deployLabel(), "true"));
        assertThat(mig.stuckAt()).isEqualTo(Operand.MIG_MANAGER);

        // while it changes the layout, the clients it paused are its own to resume
        l.put(Operand.MIG_MANAGER.deployLabel(), "true");
        l.put(DEVICE_PLUGIN.deployLabel(), NodeLabels.PAUSED_FOR_MIG_CHANGE);
        assertThat(plan(l, Set.of(DRIVER, CONTAINER_TOOLKIT), ALL).labelChanges()).isEmpty();
    }

    @Test
    void cleanupRemovesPresentAndOurDeployLabels() {
        Map<String, String> l =
                labels(
                        "nvidia.com/gpu.present",
                        "true",
                        DRIVER.deployLabel(),
                        "pre-installed",
                        DEVICE_PLUGIN.deployLabel(),
                        "true",
                        "other",
                        "x");
        Map<String, String> expected = new HashMap<>();
        expected.put("nvidia.com/gpu.present", null);
        expected.put(DEVICE_PLUGIN.deployLabel(), null);
        assertThat(NodeGate.cleanup(l)).isEqualTo(expected);
    }
}
