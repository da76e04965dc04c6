package org.gpuoperator.node.inventory.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedMigPartitionerTest {

    private static final Layout ALL_1G = new Layout(true, Collections.nCopies(7, "1g.5gb"));

    @TempDir Path hostRoot;

    private static SimulatedProfile profile(String name) {
        return SimulatedProfiles.builtIn().get(name);
    }

    private SimulatedMigPartitioner partitioner(String profile) {
        return new SimulatedMigPartitioner(profile(profile), "n", hostRoot);
    }

    /** A new agent on the node: its own inventory over the same host root. */
    private SimulatedGpuInventory agent(String profile) {
        return new SimulatedGpuInventory(profile(profile), "n", hostRoot, Clock.systemUTC());
    }

    private Path layoutFile(int gpu) {
        return hostRoot.resolve("run/nvidia/simulated-gpu/mig/gpu-" + gpu);
    }

    @Test
    void allOneSliceLayoutIsWhatANewAgentSees() {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        assertThat(mig.layout(3)).isEqualTo(Layout.DISABLED);

        mig.apply(3, ALL_1G);

        assertThat(mig.layout(3)).isEqualTo(ALL_1G);
        Gpu gpu = agent("a100-40gb-x8").gpus().get(3);
        assertThat(gpu.mig().enabled()).isTrue();
        assertThat(gpu.mig().devices())
                .hasSize(7)
                .allSatisfy(d -> assertThat(d.profile()).isEqualTo("1g.5gb"))
                .allSatisfy(
                        d ->
                                assertThat(d.attributes())
                                        .isEqualTo(
                                                profile("a100-40gb-x8")
                                                        .migProfiles()
                                                        .get("1g.5gb")))
                .allSatisfy(d -> assertThat(d.parentIndex()).isEqualTo(3));
        assertThat(gpu.mig().devices())
                .extracting(Gpu.MigDevice::slot)
                .containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(gpu.mig().devices())
                .extracting(Gpu.MigDevice::gpuInstanceId)
                .containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(gpu.mig().devices().get(4).uuid())
                .isEqualTo(SimulatedGpuInventory.migUuid("n", 3, 5));
        assertThat(agent("a100-40gb-x8").gpus().get(3).mig().devices())
                .as("deterministic: a second agent agrees")
                .isEqualTo(gpu.mig().devices());
        assertThat(agent("a100-40gb-x8").gpus().get(2).mig().enabled())
                .as("the other GPUs keep the profile's layout")
                .isFalse();
        assertThat(Layout.of(gpu)).isEqualTo(ALL_1G);
    }

    @Test
    void disablingRemovesTheMigDevices() {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        mig.apply(0, ALL_1G);
        mig.apply(0, Layout.DISABLED);

        assertThat(mig.layout(0)).isEqualTo(Layout.DISABLED);
        Gpu gpu = agent("a100-40gb-x8").gpus().get(0);
        assertThat(gpu.mig().capable()).isTrue();
        assertThat(gpu.mig().enabled()).isFalse();
        assertThat(gpu.mig().devices()).isEmpty();
    }

    @Test
    void aRunningAgentSeesANewLayoutWithoutARestart() throws Exception {
        SimulatedGpuInventory running = agent("a100-40gb-x8");
        List<Gpu> before = running.gpus();
        assertThat(running.gpus()).as("nothing changed: the same list").isSameAs(before);

        MigPartitioner mig = partitioner("a100-40gb-x8");
        mig.apply(1, new Layout(true, List.of("3g.20gb", "3g.20gb")));
        assertThat(running.gpus().get(1).mig().devices())
                .extracting(Gpu.MigDevice::profile)
                .containsExactly("3g.20gb", "3g.20gb");
        // a second write, however soon after the first, is seen too (new inode)
        mig.apply(1, new Layout(true, List.of("7g.40gb")));
        assertThat(running.gpus().get(1).mig().devices())
                .extracting(Gpu.MigDevice::profile)
                .containsExactly("7g.40gb");
        Files.delete(layoutFile(1));
        assertThat(running.gpus().get(1).mig().enabled()).isFalse();
    }

    @Test
    void theFileIsReadableAndEditableByHand() throws Exception {
        partitioner("a100-40gb-x8").apply(0, new Layout(true, List.of("2g.10gb", "1g.5gb")));
        assertThat(Files.readAllLines(layoutFile(0)))
                .filteredOn(l -> !l.startsWith("#"))
                .containsExactly("enabled=true", "devices=2g.10gb,1g.5gb");

        Files.writeString(
                layoutFile(5), "# by hand\n\n  enabled = true\ndevices= 3g.20gb , 1g.5gb\n");
        assertThat(agent("a100-40gb-x8").gpus().get(5).mig().devices())
                .extracting(Gpu.MigDevice::profile)
                .containsExactly("3g.20gb", "1g.5gb");
        Files.writeString(layoutFile(6), "enabled=true\n");
        assertThat(agent("a100-40gb-x8").gpus().get(6).mig())
                .as("MIG on, no instances yet")
                .isEqualTo(new Gpu.Mig(true, true, List.of()));
        Files.writeString(hostRoot.resolve("run/nvidia/simulated-gpu/mig/README"), "not a GPU");
        assertThat(agent("a100-40gb-x8").gpus()).hasSize(8);
    }

    @Test
    void gpuIndexOutOfRangeIsRefused() {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        assertThatThrownBy(() -> mig.apply(8, ALL_1G))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("GPU 8: no such GPU on node n")
                .hasMessageContaining("GPUs 0..7");
        assertThatThrownBy(() -> mig.layout(-1)).isInstanceOf(GpuSourceException.class);
        assertThatThrownBy(() -> mig.profiles(8)).isInstanceOf(GpuSourceException.class);
        assertThat(hostRoot.resolve(SimulatedMigLayouts.MIG_DIR)).doesNotExist();
    }

    @Test
    void enablingMigOnAGpuThatIsNotMigCapableIsRefused() {
        MigPartitioner mig = partitioner("t4-x1");
        assertThat(mig.profiles(0)).isEmpty();
        assertThatThrownBy(() -> mig.apply(0, new Layout(true, List.of())))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("GPU 0 on node n: not MIG capable (Tesla T4");
        mig.apply(0, Layout.DISABLED);
        assertThat(layoutFile(0)).as("already off: nothing written").doesNotExist();
    }

    @Test
    void unknownProfileIsRefusedListingTheKnownOnes() {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        assertThatThrownBy(() -> mig.apply(2, new Layout(true, List.of("1g.5gb", "1g.10gb"))))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("GPU 2 on node n: unknown MIG profile '1g.10gb'")
                .hasMessageContaining("known: 1g.5gb, 2g.10gb, 3g.20gb, 7g.40gb");
        assertThat(layoutFile(2)).doesNotExist();
    }

    @Test
    void moreThanSevenSlicesAreRefused() {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        mig.apply(4, new Layout(true, List.of("3g.20gb", "3g.20gb", "1g.5gb")));
        assertThatThrownBy(
                        () ->
                                mig.apply(
                                        4,
                                        new Layout(true, List.of("3g.20gb", "3g.20gb", "2g.10gb"))))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("GPU 4 on node n")
                .hasMessageContaining("need 8 GPU instance slices, but the GPU has 7");
        assertThatThrownBy(() -> mig.apply(4, new Layout(true, Collections.nCopies(8, "1g.5gb"))))
                .hasMessageContaining("need 8");
        assertThat(mig.layout(4))
                .as("a refused layout leaves the old one")
                .isEqualTo(new Layout(true, List.of("3g.20gb", "3g.20gb", "1g.5gb")));
    }

    @Test
    void applyingTheCurrentLayoutWritesNothing() throws Exception {
        MigPartitioner mig = partitioner("a100-40gb-x8");
        mig.apply(0, Layout.DISABLED);
        assertThat(hostRoot.resolve(SimulatedMigLayouts.MIG_DIR))
                .as("the profile's own layout: no file at all")
                .doesNotExist();

        mig.apply(0, ALL_1G);
        FileTime old = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(layoutFile(0), old);
        Object inode = Files.readAttributes(layoutFile(0), "unix:ino").get("ino");
        mig.apply(0, new Layout(true, Collections.nCopies(7, "1g.5gb")));
        assertThat(Files.getLastModifiedTime(layoutFile(0))).isEqualTo(old);
        assertThat(Files.readAttributes(layoutFile(0), "unix:ino").get("ino")).isEqualTo(inode);
    }

    @Test
    void aProfileWithMigOnKeepsItsLayoutWithoutAFile() {
        MigPartitioner mig = partitioner("a100-40gb-x8-mig-mixed");
        Layout mixed = new Layout(true, List.of("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"));
        assertThat(mig.layout(7)).isEqualTo(mixed);
        mig.apply(7, mixed);
        assertThat(hostRoot.resolve(SimulatedMigLayouts.MIG_DIR)).doesNotExist();
        assertThat(agent("a100-40gb-x8-mig-mixed").gpus())
                .allSatisfy(g -> assertThat(Layout.of(g)).isEqualTo(mixed));

        mig.apply(7, Layout.DISABLED);
        assertThat(layoutFile(7)).exists();
        assertThat(agent("a100-40gb-x8-mig-mixed").gpus().get(7).mig().devices()).isEmpty();
        assertThat(agent("a100-40gb-x8-mig-mixed").gpus().get(6).mig().devices()).hasSize(4);
    }

    @Test
    void profilesAreTheGpusMigProfilesSmallestFirst() {
        var profiles = partitioner("h100-80gb-x8").profiles(0);
        assertThat(profiles.keySet()).containsExactly("1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb");
        assertThat(profiles.get("3g.40gb").gpuInstanceSlices()).isEqualTo(3);
    }

    @Test
    void malformedFilesAreErrorsNamingTheFileAndLine() throws Exception {
        Path f = layoutFile(2);
        Files.createDirectories(f.getParent());
        record Case(String content, String line, String says) {}
        List<Case> cases =
                List.of(
                        new Case("# mine\nenabled=yes\n", ":2: ", "expected true or false"),
                        new Case("enabled=true\ndevices=1g.5gb,,1g.5gb\n", ":2: ", "empty MIG"),
                        new Case("enabled=true\nprofiles=1g.5gb\n", ":2: ", "unknown key"),
                        new Case("enabled true\n", ":1: ", "expected key=value"),
                        new Case("enabled=true\nenabled=false\n", ":2: ", "given twice"),
                        new Case("enabled=true\ndevices=4g.20gb\n", ":2: ", "unknown MIG profile"),
                        new Case(
                                "enabled=true\n\ndevices=7g.40gb,1g.5gb\n",
                                ":3: ",
                                "need 8 GPU instance slices"),
                        new Case("devices=1g.5gb\nenabled=false\n", ":1: ", "enabled=false"),
                        new Case("devices=\n", ": ", "no 'enabled=' line"));
        for (Case c : cases) {
            Files.writeString(f, c.content());
            assertThatThrownBy(() -> agent("a100-40gb-x8"), c.content())
                    .isInstanceOf(GpuSourceException.class)
                    .hasMessageContaining(f + c.line())
                    .hasMessageContaining(c.says());
            assertThatThrownBy(() -> partitioner("a100-40gb-x8").layout(2))
                    .hasMessageContaining(f + c.line());
        }
        Path t4 = layoutFile(0);
        Files.writeString(t4, "enabled=true\n");
        assertThatThrownBy(() -> agent("t4-x1")).hasMessageContaining(t4 + ":1: not MIG capable");
    }

    @Test
    void aRunningAgentReportsABrokenEditAndRecoversOnceFixed() throws Exception {
        SimulatedGpuInventory running = agent("a100-40gb-x8");
        Files.createDirectories(layoutFile(0).getParent());
        Files.writeString(layoutFile(0), "enabled=maybe\n");
        assertThatThrownBy(running::gpus).hasMessageContaining(layoutFile(0) + ":1: ");
        Files.writeString(layoutFile(0), "enabled=true\ndevices=7g.40gb\n");
        assertThat(running.gpus().get(0).mig().devices()).hasSize(1);
    }

    @Test
    void applyReplacesAFileBrokenByHand() throws Exception {
        Files.createDirectories(layoutFile(1).getParent());
        Files.writeString(layoutFile(1), "garbage\n");
        MigPartitioner mig = partitioner("a100-40gb-x8");
        mig.apply(1, ALL_1G);
        assertThat(mig.layout(1)).isEqualTo(ALL_1G);
    }

    @Test
    void gpuSourceOpensTheSimulatedPartitioner() {
        MigPartitioner mig =
                GpuSource.parse("simulated:a100-40gb-x8")
                        .openPartitioner(hostRoot, "n", null, null);
        assertThat(mig).isInstanceOf(SimulatedMigPartitioner.class);
        GpuSourceOptions.of("simulated:a100-40gb-x8", hostRoot, "n")
                .openPartitioner()
                .apply(0, ALL_1G);
        assertThat(mig.layout(0)).isEqualTo(ALL_1G);
    }
}
