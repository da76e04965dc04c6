package org.gpuoperator.migmanager.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.gpuoperator.migmanager.config.DefaultMigConfig;
import org.gpuoperator.migmanager.config.MigConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.gpuoperator.node.inventory.simulated.SimulatedProfile;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;

class MigPlannerTest {

    private static final SimulatedProfile A100 = SimulatedProfiles.builtIn().get("a100-40gb-x8");
    private static final SimulatedProfile H100 = SimulatedProfiles.builtIn().get("h100-80gb-x8");
    private static final SimulatedProfile T4 = SimulatedProfiles.builtIn().get("t4-x1");
    private static final MigConfigFile DEFAULTS = DefaultMigConfig.file();
    private static final Layout BALANCED_40GB =
            new Layout(true, List.of("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"));

    /** A GPU as the simulated profile has it, its PCI device id unknown (as simulated GPUs). */
    private static GpuFacts gpu(SimulatedProfile profile, int index, Layout current) {
        return new GpuFacts(index, profile.product(), null, current, profile.migProfiles());
    }

    private static List<GpuFacts> node(SimulatedProfile profile, Layout current) {
        return IntStream.range(0, profile.count()).mapToObj(i -> gpu(profile, i, current)).toList();
    }

    private static MigConfigFile file(String configs) {
        return MigConfigFile.parse("version: v1\nmig-configs:\n" + configs, "config.yaml");
    }

    @Test
    void all1g5gbGivesEveryA100SevenSmallDevices() {
        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-1g.5gb", node(A100, Layout.DISABLED));

        assertThat(plan.configName()).isEqualTo("all-1g.5gb");
        assertThat(plan.gpus()).hasSize(8);
        Layout seven = new Layout(true, Collections.nCopies(7, "1g.5gb"));
        assertThat(plan.desired().values()).containsOnly(seven);
        assertThat(plan.desired().values().stream().mapToInt(l -> l.devices().size()).sum())
                .isEqualTo(56);
        assertThat(plan.changed()).isTrue();
        assertThat(plan.changes()).containsOnlyKeys(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(plan.gpus()).allSatisfy(g -> assertThat(g.entry()).hasValue(0));
    }

    @Test
    void allBalancedPicksTheA100EntryByProductNameWhenTheIdIsUnknown() {
        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-balanced", node(A100, Layout.DISABLED));

        assertThat(plan.desired().values()).containsOnly(BALANCED_40GB);
        assertThat(plan.gpus()).allSatisfy(g -> assertThat(g.entry()).hasValue(0));
    }

    @Test
    void allBalancedOnAnH100PicksThe80GbEntry() {
        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-balanced", node(H100, Layout.DISABLED));

        assertThat(plan.desired().values())
                .containsOnly(
                        new Layout(true, List.of("3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb")));
        assertThat(plan.gpus()).allSatisfy(g -> assertThat(g.entry()).hasValue(1));
    }

    @Test
    void aLayoutInForceIsNoChange() {
        SimulatedProfile mixed = SimulatedProfiles.builtIn().get("a100-40gb-x8-mig-mixed");
        Layout now = new Layout(mixed.migEnabled(), mixed.migDevices());

        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-balanced", node(mixed, now));

        assertThat(plan.changed()).isFalse();
        assertThat(plan.changes()).isEmpty();
        assertThat(plan.desired().values()).containsOnly(now);
    }

    @Test
    void theSameDevicesInAnotherOrderAreNoChange() {
        Layout now = new Layout(true, List.of("1g.5gb", "3g.20gb", "1g.5gb", "2g.10gb"));

        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-balanced", List.of(gpu(A100, 0, now)));

        assertThat(plan.gpus().getFirst().desired()).isSameAs(now);
        assertThat(plan.changed()).isFalse();
    }

    @Test
    void allDisabledTurnsMigOffWhereItIsOn() {
        List<GpuFacts> gpus = List.of(gpu(A100, 0, BALANCED_40GB), gpu(A100, 1, Layout.DISABLED));

        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-disabled", gpus);

        assertThat(plan.desired())
                .containsOnly(Map.entry(0, Layout.DISABLED), Map.entry(1, Layout.DISABLED));
        assertThat(plan.changes()).containsOnlyKeys(0);
    }

    @Test
    void allEnabledTurnsMigOnWithoutDevices() {
        MigPlan plan =
                MigPlanner.plan(DEFAULTS, "all-enabled", List.of(gpu(A100, 0, Layout.DISABLED)));

        assertThat(plan.desired()).containsExactly(Map.entry(0, new Layout(true, List.of())));
    }

    @Test
    void all1g10gbDependsOnThePartAndNamesAProfileTheGpuLacks() {
        MigPlan h100 = MigPlanner.plan(DEFAULTS, "all-1g.10gb", node(H100, Layout.DISABLED));
        assertThat(h100.desired().values())
                .containsOnly(new Layout(true, Collections.nCopies(7, "1g.10gb")));

        // the 40GB entry matches, but the simulated A100 offers no 1g.10gb
        assertThatThrownBy(
                        () -> MigPlanner.plan(DEFAULTS, "all-1g.10gb", node(A100, Layout.DISABLED)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage(
                        "default-mig-parted-config/config.yaml: mig-configs.all-1g.10gb[1].mig-devices:"
                                + " GPU 0 (NVIDIA A100-SXM4-40GB) does not offer profile '1g.10gb'"
                                + " (it offers 1g.5gb, 2g.10gb, 3g.20gb, 7g.40gb)");
    }

    @Test
    void theGpusOwnDeviceIdWinsOverItsProductName() {
        // an A100 40GB by name that says it is an 80GB part: the 80GB entry (0) selects it
        GpuFacts gpu =
                new GpuFacts(0, A100.product(), "0x20b210de", Layout.DISABLED, H100.migProfiles());

        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-1g.10gb", List.of(gpu));

        assertThat(plan.gpus().getFirst().entry()).hasValue(0);
        assertThat(gpu.deviceId()).hasValue("0x20B210DE");
    }

    @Test
    void aGpuNoEntrySelectsKeepsItsLayout() {
        // unknown product, unknown id: filtered entries pass it by
        GpuFacts unknown =
                new GpuFacts(0, "NVIDIA Future GPU", null, BALANCED_40GB, A100.migProfiles());

        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-balanced", List.of(unknown));

        assertThat(plan.gpus().getFirst())
                .isEqualTo(new GpuPlan(0, BALANCED_40GB, BALANCED_40GB, OptionalInt.empty()));
        assertThat(plan.changed()).isFalse();
    }

    @Test
    void laterEntriesOverrideEarlierOnesAndIndicesSelectGpus() {
        MigConfigFile file =
                file(
                        """
                          custom:
                            - devices: all
                              mig-enabled: true
                              mig-devices: {"1g.5gb": 7}
                            - devices: [1]
                              mig-enabled: true
                              mig-devices: {"3g.20gb": 2}
                            - devices: [2]
                              mig-enabled: false
                        """);

        MigPlan plan = MigPlanner.plan(file, "custom", node(A100, Layout.DISABLED).subList(0, 4));

        assertThat(plan.desired())
                .containsExactly(
                        Map.entry(0, new Layout(true, Collections.nCopies(7, "1g.5gb"))),
                        Map.entry(1, new Layout(true, List.of("3g.20gb", "3g.20gb"))),
                        Map.entry(2, Layout.DISABLED),
                        Map.entry(3, new Layout(true, Collections.nCopies(7, "1g.5gb"))));
        assertThat(plan.gpus())
                .extracting(GpuPlan::entry)
                .containsExactly(
                        OptionalInt.of(0), OptionalInt.of(1), OptionalInt.of(2), OptionalInt.of(0));
        assertThat(plan.changes()).containsOnlyKeys(0, 1, 3);
    }

    @Test
    void devicesAreOrderedLargestFirstThenByNameAndZeroCountsAskForNothing() {
        MigConfigFile file =
                file(
                        """
                          c:
                            - devices: all
                              mig-enabled: true
                              mig-devices: {"1g.5gb": 2, "1g.10gb": 0, "3g.20gb": 1, "2g.10gb": 1}
                        """);

        MigPlan plan = MigPlanner.plan(file, "c", List.of(gpu(A100, 0, Layout.DISABLED)));

        assertThat(plan.desired()).containsExactly(Map.entry(0, BALANCED_40GB));
    }

    @Test
    void aGpuWithoutMigIsPassedByThroughAllAndRefusedByIndex() {
        MigPlan plan = MigPlanner.plan(DEFAULTS, "all-1g.5gb", node(T4, Layout.DISABLED));
        assertThat(plan.gpus().getFirst())
                .isEqualTo(new GpuPlan(0, Layout.DISABLED, Layout.DISABLED, OptionalInt.empty()));

        MigConfigFile file =
                file(
                        """
                          "off":
                            - devices: [0]
                              mig-enabled: false
                          "on":
                            - devices: [0]
                              mig-enabled: true
                              mig-devices: {}
                        """);
        assertThat(MigPlanner.plan(file, "off", node(T4, Layout.DISABLED)).changed()).isFalse();
        assertThatThrownBy(() -> MigPlanner.plan(file, "on", node(T4, Layout.DISABLED)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage(
                        "config.yaml: mig-configs.on[0]: GPU 0 (Tesla T4) is not MIG capable;"
                                + " mig-enabled: true cannot apply to it");
    }

    @Test
    void refusesAnUnknownConfigListingTheKnownOnes() {
        MigConfigFile file =
                file(
                        """
                          b: [{devices: all, mig-enabled: false}]
                          a: [{devices: all, mig-enabled: false}]
                        """);

        assertThatThrownBy(() -> MigPlanner.plan(file, "all-3g.20gb", node(A100, Layout.DISABLED)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage("config.yaml: no MIG config 'all-3g.20gb' (known: b, a)");
    }

    @Test
    void refusesAGpuIndexNotOnTheNode() {
        MigConfigFile file =
                file(
                        """
                          custom:
                            - devices: [0, 2]
                              mig-enabled: false
                        """);

        assertThatThrownBy(
                        () ->
                                MigPlanner.plan(
                                        file, "custom", node(A100, Layout.DISABLED).subList(0, 2)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage(
                        "config.yaml: mig-configs.custom[0].devices: GPU 2 is not on this node (its"
                                + " GPUs: 0, 1)");
    }

    @Test
    void refusesMoreSlicesThanTheGpuHas() {
        MigConfigFile file =
                file(
                        """
                          big:
                            - devices: all
                              mig-enabled: true
                              mig-devices: {"3g.20gb": 2, "2g.10gb": 1}
                        """);

        assertThatThrownBy(() -> MigPlanner.plan(file, "big", node(A100, Layout.DISABLED)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage(
                        "config.yaml: mig-configs.big[0].mig-devices: GPU 0 (NVIDIA A100-SXM4-40GB)"
                                + " has 7 GPU-instance slices, the devices need 8 (2 x 3g.20gb, 1 x"
                                + " 2g.10gb)");
    }

    @Test
    void refusesAProfileTheGpuDoesNotOffer() {
        assertThatThrownBy(
                        () -> MigPlanner.plan(DEFAULTS, "all-7g.80gb", node(A100, Layout.DISABLED)))
                .isInstanceOf(MigPlanException.class)
                .hasMessage(
                        "default-mig-parted-config/config.yaml: mig-configs.all-7g.80gb[0].mig-devices:"
                                + " GPU 0 (NVIDIA A100-SXM4-40GB) does not offer profile '7g.80gb'"
                                + " (it offers 1g.5gb, 2g.10gb, 3g.20gb, 7g.40gb)");
    }

    @Test
    void productNamesMapToDeviceIdsWithOrWithoutTheVendorPrefix() {
        assertThat(ProductDeviceIds.forProduct("NVIDIA A100-SXM4-40GB")).hasValue("0x20B010DE");
        assertThat(ProductDeviceIds.forProduct("A100-SXM4-40GB")).hasValue("0x20B010DE");
        assertThat(ProductDeviceIds.forProduct("NVIDIA H100 80GB HBM3")).hasValue("0x233010DE");
        assertThat(ProductDeviceIds.forProduct("Tesla T4")).hasValue("0x1EB810DE");
        assertThat(ProductDeviceIds.forProduct("NVIDIA L4")).hasValue("0x27B810DE");
        assertThat(ProductDeviceIds.forProduct("NVIDIA Future GPU")).isEmpty();
        // every product of the built-in simulated profiles has one
        SimulatedProfiles profiles = SimulatedProfiles.builtIn();
        assertThat(profiles.names())
                .allSatisfy(
                        n ->
                                assertThat(ProductDeviceIds.forProduct(profiles.get(n).product()))
                                        .as(n)
                                        .isPresent());
    }

    @Test
    void gpuFactsOfAnInventoryGpuHaveNoDeviceIdOfTheirOwn() {
        Gpu gpu =
                new Gpu(
                        3,
                        3,
                        "GPU-0",
                        A100.product(),
                        40960,
                        "00000000:17:00.0",
                        0,
                        new Gpu.ComputeCapability(8, 0),
                        new Gpu.Mig(true, false, List.of()));

        GpuFacts facts = GpuFacts.of(gpu, Layout.DISABLED, A100.migProfiles());

        assertThat(facts.index()).isEqualTo(3);
        assertThat(facts.pciDeviceId()).isNull();
        assertThat(facts.deviceId()).hasValue("0x20B010DE");
        assertThat(facts.slices()).isEqualTo(7);
        assertThat(facts.describe()).isEqualTo("GPU 3 (NVIDIA A100-SXM4-40GB)");
    }
}
