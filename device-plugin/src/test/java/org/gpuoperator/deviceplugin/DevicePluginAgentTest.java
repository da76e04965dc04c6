package org.gpuoperator.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.emulator.KubeletEmulator;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon against the kubelet emulator over real unix sockets, on simulated GPUs. */
class DevicePluginAgentTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final String GPU = "nvidia.com/gpu";

    @TempDir Path tmp;
    AgentHarness h;

    @BeforeEach
    void setUp() throws Exception {
        h = new AgentHarness(tmp);
    }

    @AfterEach
    void tearDown() throws Exception {
        h.close();
        if (System.getenv("DP_TEST_LOG") != null) {
            System.out.println(h.log());
        }
    }

    static String uuid(int i) {
        return SimulatedGpuInventory.gpuUuid(AgentHarness.NODE, i);
    }

    @Test
    void registersServesTheFullListWithTopologyAndWritesPluginReady() throws Exception {
        h.withKubelet().start("h100-80gb-x8", null, Map.of());

        var reg = h.kubelet.awaitRegistration(GPU, WAIT);
        assertThat(reg.request().getVersion()).isEqualTo("v1beta1");
        assertThat(reg.request().getEndpoint()).isEqualTo("nvidia-gpu.sock");
        assertThat(reg.request().getOptions().getGetPreferredAllocationAvailable()).isTrue();
        assertThat(h.kubelet.options(GPU).getPreStartRequired()).isFalse();

        List<Device> devices = h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT);
        assertThat(devices)
                .extracting(Device::getID)
                .containsExactly(
                        uuid(0), uuid(1), uuid(2), uuid(3), uuid(4), uuid(5), uuid(6), uuid(7));
        assertThat(devices).allMatch(d -> d.getHealth().equals("Healthy"));
        // 8 GPUs on 2 NUMA nodes
        assertThat(devices.get(0).getTopology().getNodes(0).getID()).isEqualTo(0);
        assertThat(devices.get(7).getTopology().getNodes(0).getID()).isEqualTo(1);
        assertThat(h.kubelet.allocatable(GPU)).isEqualTo(8);
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isTrue();

        await().atMost(WAIT).until(h::pluginReady);
        assertThat(Files.readString(h.validations.resolve("plugin-ready")))
                .contains("resources=nvidia.com/gpu");

        h.agent.close();
        assertThat(h.pluginReady()).isFalse();
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isFalse();
    }

    @Test
    void startsBeforeTheKubeletAndRegistersOnceItAppears() throws Exception {
        h.start("t4-x1", null, Map.of());
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isTrue();
        assertThat(h.pluginReady()).isFalse();

        h.withKubelet();
        h.kubelet.awaitRegistration(GPU, WAIT);
        h.kubelet.awaitDevices(GPU, d -> d.size() == 1, WAIT);
        await().atMost(WAIT).until(h::pluginReady);
        // the wait is logged once, not once per poll
        assertThat(h.log().lines().filter(l -> l.contains("event=waiting-for-kubelet")).count())
                .isEqualTo(1);
    }

    @Test
    void reRegistersWithinOneSecondAfterAKubeletRestart() throws Exception {
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitRegistration(GPU, WAIT);
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);

        for (int round = 0; round < 3; round++) {
            long restarted = System.nanoTime();
            h.kubelet.restart();
            assertThat(h.kubelet.resources()).isEmpty();
            KubeletEmulator.Registration again = h.kubelet.awaitRegistration(GPU, restarted, WAIT);
            Duration took = Duration.ofNanos(again.receivedNanos() - restarted);
            assertThat(took)
                    .as("re-registration after kubelet restart %d", round)
                    .isLessThan(Duration.ofSeconds(1));
            h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        }
        assertThat(h.kubelet.allocatable(GPU)).isEqualTo(2);
        await().atMost(WAIT).until(h::pluginReady);
    }

    /**
     * Kubelet versions that leave plugin sockets in place: a new kubelet.sock alone triggers
     * Register.
     */
    @Test
    void reRegistersWhenOnlyKubeletSockIsReplaced() throws Exception {
        h.withKubelet().start("t4-x1", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 1, WAIT);
        Object pluginSocket =
                Files.readAttributes(
                                h.pluginDir.resolve("nvidia-gpu.sock"),
                                java.nio.file.attribute.BasicFileAttributes.class)
                        .fileKey();
        h.kubelet.close(); // removes kubelet.sock only
        long restarted = System.nanoTime();
        h.kubelet = KubeletEmulator.start(h.pluginDir);
        KubeletEmulator.Registration again = h.kubelet.awaitRegistration(GPU, restarted, WAIT);
        assertThat(Duration.ofNanos(again.receivedNanos() - restarted))
                .isLessThan(Duration.ofSeconds(1));
        h.kubelet.awaitDevices(GPU, d -> d.size() == 1, WAIT);
        assertThat(
                        Files.readAttributes(
                                        h.pluginDir.resolve("nvidia-gpu.sock"),
                                        java.nio.file.attribute.BasicFileAttributes.class)
                                .fileKey())
                .as("same socket, not re-served")
                .isEqualTo(pluginSocket);
    }

    @Test
    void aSuccessorStartedBeforeTheOldPluginEndsKeepsTheSocketTheRegistrationAndReadiness()
            throws Exception {
        // a DaemonSet rollout: the new pod may start while the old one is still terminating
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        await().atMost(WAIT).until(h::pluginReady);

        ByteArrayOutputStream successorLog = new ByteArrayOutputStream();
        DevicePluginAgent successor =
                h.agent(new EventLog("device-plugin", new PrintStream(successorLog, true)));
        try {
            long before = System.nanoTime();
            successor.start();
            h.kubelet.awaitRegistration(GPU, before, WAIT);
            await().atMost(WAIT).until(() -> h.log().contains("event=plugin-socket-taken-over"));
            await().atMost(WAIT).until(successor::ready);

            h.agent.close(); // the old pod's SIGTERM
            assertThat(h.kubelet.registrations())
                    .as("one registration each, no taking back\n%s\n%s", h.log(), successorLog)
                    .hasSize(2);
            assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isTrue();
            assertThat(h.kubelet.connected(GPU)).isTrue();
            AllocateResponse r = h.kubelet.allocate(GPU, List.of(uuid(0)));
            assertThat(r.getContainerResponsesCount()).isEqualTo(1);
            assertThat(h.pluginReady()).as("the successor's plugin-ready stays").isTrue();
            assertThat(successorLog.toString()).doesNotContain("plugin-socket-removed");
        } finally {
            successor.close();
        }
        assertThat(h.pluginReady()).isFalse();
    }

    @Test
    void anInstanceEndingBeforeItServedLeavesTheServingInstancesPluginReady() throws Exception {
        // CI: rollouts in quick succession; a pod deleted before it served removed the file of
        // the one serving, which never wrote it again, and feature discovery waited for ever
        h.withKubelet().start("l4-x2", null, Map.of());
        await().atMost(WAIT).until(h::pluginReady);
        String written = Files.readString(h.validations.resolve(ReadinessFiles.PLUGIN));

        h.agent(new EventLog("device-plugin", new PrintStream(new ByteArrayOutputStream())))
                .close();

        assertThat(Files.readString(h.validations.resolve(ReadinessFiles.PLUGIN)))
                .isEqualTo(written);
    }

    @Test
    void aPluginReadyRemovedWhileRegisteredIsWrittenAgain() throws Exception {
        h.withKubelet().start("l4-x2", null, Map.of());
        await().atMost(WAIT).until(h::pluginReady);

        Files.delete(h.validations.resolve(ReadinessFiles.PLUGIN));

        // the file is written before its log line
        await().atMost(WAIT).until(() -> h.pluginReady() && h.log().contains("ready-restored"));
        assertThat(h.log().lines().filter(l -> l.contains("event=ready ")).count())
                .as("told again every 2 s, written only when it drifted")
                .isEqualTo(1);
    }

    @Test
    void atStartAPluginReadyOfAnEarlierInstanceGoesAndOneOfALaterInstanceStays() throws Exception {
        ReadinessFiles files = new ReadinessFiles(h.validations);
        Map<String, String> later =
                Map.of(
                        DevicePluginAgent.INSTANCE_FACT,
                        "later",
                        DevicePluginAgent.STARTED_FACT,
                        Instant.now().plusSeconds(60).toString());
        files.markReady(ReadinessFiles.PLUGIN, later);
        h.start("l4-x2", null, Map.of()); // no kubelet: it serves but cannot register
        assertThat(files.read(ReadinessFiles.PLUGIN)).contains(later);
        h.agent.close();
        assertThat(files.read(ReadinessFiles.PLUGIN)).as("not its own").contains(later);

        files.markReady(
                ReadinessFiles.PLUGIN,
                Map.of(
                        DevicePluginAgent.INSTANCE_FACT,
                        "earlier",
                        DevicePluginAgent.STARTED_FACT,
                        Instant.now().toString()));
        h.start("l4-x2", null, Map.of());
        assertThat(h.pluginReady()).isFalse();
        assertThat(h.log()).contains("event=not-ready");
    }

    @Test
    void aPluginReadyWithoutAStartTimeCountsAsWrittenBefore() {
        Instant now = Instant.now();
        assertThat(DevicePluginAgent.writtenBefore(Map.of(), now)).isTrue();
        assertThat(DevicePluginAgent.writtenBefore(Map.of("started", "garbage"), now)).isTrue();
        assertThat(
                        DevicePluginAgent.writtenBefore(
                                Map.of("started", now.minusMillis(1).toString()), now))
                .isTrue();
        assertThat(
                        DevicePluginAgent.writtenBefore(
                                Map.of("started", now.plusMillis(1).toString()), now))
                .isFalse();
    }

    @Test
    void aPluginThatStoodByServesAgainOnceTheOtherEndsAndRemovesItsSocket() throws Exception {
        // a rollout whose old pod started slowly serves after its successor did: the successor
        // stands by and takes over once the old pod ends (CI: it stood down for good, never ready)
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        await().atMost(WAIT).until(h::pluginReady);

        ByteArrayOutputStream lateLog = new ByteArrayOutputStream();
        DevicePluginAgent late = h.agent(new EventLog("device-plugin", new PrintStream(lateLog)));
        try {
            long before = System.nanoTime();
            late.start();
            h.kubelet.awaitRegistration(GPU, before, WAIT);
            await().atMost(WAIT).until(() -> h.log().contains("event=plugin-socket-taken-over"));
            await().atMost(WAIT).until(() -> !h.agent.ready());
        } finally {
            long handBack = System.nanoTime();
            late.close(); // the old pod's SIGTERM: it removes its own socket
            h.kubelet.awaitRegistration(GPU, handBack, WAIT);
        }
        await().atMost(WAIT).until(() -> h.agent.ready() && h.pluginReady());
        assertThat(h.log())
                .contains("event=plugin-socket-released")
                .containsPattern("event=plugin-socket-released .*reason=removed");
        assertThat(h.kubelet.connected(GPU)).isTrue();
        assertThat(h.kubelet.allocate(GPU, List.of(uuid(0))).getContainerResponsesCount())
                .isEqualTo(1);
    }

    @Test
    void aSocketNobodyListensOnAnyMoreIsServedAgain() throws Exception {
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        await().atMost(WAIT).until(h::pluginReady);
        Path socket = h.pluginDir.resolve("nvidia-gpu.sock");
        Path strangers = h.pluginDir.resolve(".stranger.sock");

        try (var other =
                java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            other.bind(java.net.UnixDomainSocketAddress.of(strangers));
            Files.move(strangers, socket, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(WAIT).until(() -> !h.agent.ready());
            Thread.sleep(1500); // past a listener check: someone listens, so it keeps standing by
            assertThat(h.agent.ready()).isFalse();
        } // the other process killed: its socket file stays, nobody listens on it
        long killed = System.nanoTime();
        h.kubelet.awaitRegistration(GPU, killed, WAIT);
        await().atMost(WAIT).until(() -> h.agent.ready() && h.pluginReady());
        assertThat(h.log()).containsPattern("event=plugin-socket-released .*reason=\"?nobody");
        assertThat(h.kubelet.allocate(GPU, List.of(uuid(1))).getContainerResponsesCount())
                .isEqualTo(1);
    }

    @Test
    void theBoundNameAKilledInstanceLeftIsRemovedAtStart() throws Exception {
        Path left = h.pluginDir.resolve(".nvidia-gpu.sock.dead00-1");
        try (var server =
                java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            server.bind(java.net.UnixDomainSocketAddress.of(left)); // closing leaves the file
        }
        assertThat(left).exists();
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        assertThat(left).doesNotExist();
        assertThat(h.log()).contains("event=left-socket-removed");
        try (var sockets = Files.list(h.pluginDir)) {
            assertThat(sockets.map(p -> p.getFileName().toString()))
                    .contains("nvidia-gpu.sock", "kubelet.sock")
                    .anyMatch(n -> n.startsWith(".nvidia-gpu.sock."))
                    .hasSize(3);
        }
    }

    @Test
    void criticalXidMakesTheDeviceUnhealthyAndRecoveryMakesItHealthyAgain() throws Exception {
        h.withKubelet().start("h100-80gb-x8", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT);

        h.faults().injectXid(2, 79);
        List<Device> after =
                h.kubelet.awaitDevices(GPU, d -> unhealthy(d).equals(List.of(uuid(2))), WAIT);
        assertThat(after).hasSize(8);
        assertThat(h.kubelet.allocatable(GPU)).isEqualTo(7);
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of(uuid(2))))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> {
                            assertThat(e.getStatus().getCode())
                                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
                            assertThat(e.getStatus().getDescription())
                                    .contains(uuid(2))
                                    .contains("unhealthy");
                        });

        h.faults().recover(2);
        h.kubelet.awaitDevices(GPU, d -> unhealthy(d).isEmpty(), WAIT);
        assertThat(h.kubelet.allocatable(GPU)).isEqualTo(8);
        assertThat(h.kubelet.allocate(GPU, List.of(uuid(2))).getContainerResponses(0).getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(2));

        h.faults().loseGpu(5);
        h.kubelet.awaitDevices(GPU, d -> unhealthy(d).equals(List.of(uuid(5))), WAIT);
        h.faults().recover(5);
        h.kubelet.awaitDevices(GPU, d -> unhealthy(d).isEmpty(), WAIT);
    }

    @Test
    void ignoredXidLeavesTheDeviceHealthy() throws Exception {
        h.withKubelet().start("t4-x1", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 1, WAIT);
        h.faults().injectXid(0, 13);
        await().atMost(WAIT).until(() -> h.log().contains("event=health-event-ignored"));
        // a critical XID afterwards is seen, so the ignored one was processed and left the device
        // healthy
        assertThat(unhealthy(h.kubelet.devices(GPU))).isEmpty();
        assertThat(h.kubelet.updates(GPU)).hasSize(1);
        h.faults().injectXid(0, 48);
        h.kubelet.awaitDevices(GPU, d -> unhealthy(d).equals(List.of(uuid(0))), WAIT);
    }

    @Test
    void timeSlicingAdvertisesReplicasAndAllocatesThePhysicalGpu() throws Exception {
        Path config =
                Files.writeString(
                        tmp.resolve("config.yaml"),
                        """
                version: v1
                sharing:
                  timeSlicing:
                    failRequestsGreaterThanOne: true
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """);
        h.withKubelet().start("l4-x2", config, Map.of());
        List<Device> devices = h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT);
        assertThat(devices)
                .extracting(Device::getID)
                .contains(uuid(0) + "::0", uuid(0) + "::3", uuid(1) + "::3");

        AllocateResponse r = h.kubelet.allocate(GPU, List.of(uuid(1) + "::2"));
        assertThat(r.getContainerResponses(0).getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", uuid(1));
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of(uuid(0) + "::0", uuid(0) + "::1")))
                .hasMessageContaining("maximum request size for shared resources is 1; found 2");

        // an XID on the GPU turns every replica of it unhealthy
        h.faults().injectXid(1, 79);
        h.kubelet.awaitDevices(GPU, d -> unhealthy(d).size() == 4, WAIT);
        assertThat(unhealthy(h.kubelet.devices(GPU))).allMatch(id -> id.startsWith(uuid(1)));
    }

    @Test
    void migMixedServesOneSocketAndOneRegistrationPerResource() throws Exception {
        h.withKubelet().start("a100-40gb-x8-mig-mixed", null, Map.of(Flag.MIG_STRATEGY, "mixed"));
        for (String r :
                List.of(
                        "nvidia.com/mig-1g.5gb",
                        "nvidia.com/mig-2g.10gb",
                        "nvidia.com/mig-3g.20gb")) {
            h.kubelet.awaitRegistration(r, WAIT);
        }
        assertThat(h.kubelet.awaitDevices("nvidia.com/mig-1g.5gb", d -> d.size() == 16, WAIT))
                .hasSize(16);
        assertThat(h.kubelet.awaitDevices("nvidia.com/mig-2g.10gb", d -> d.size() == 8, WAIT))
                .hasSize(8);
        assertThat(h.kubelet.awaitDevices("nvidia.com/mig-3g.20gb", d -> d.size() == 8, WAIT))
                .hasSize(8);
        assertThat(h.kubelet.resources()).doesNotContain(GPU);
        assertThat(h.kubelet.registrations())
                .extracting(r -> r.request().getEndpoint())
                .containsExactlyInAnyOrder(
                        "nvidia-mig-1g.5gb.sock",
                        "nvidia-mig-2g.10gb.sock",
                        "nvidia-mig-3g.20gb.sock");
        for (String sock :
                List.of(
                        "nvidia-mig-1g.5gb.sock",
                        "nvidia-mig-2g.10gb.sock",
                        "nvidia-mig-3g.20gb.sock")) {
            assertThat(Files.exists(h.pluginDir.resolve(sock))).isTrue();
        }
        String mig = SimulatedGpuInventory.migUuid(AgentHarness.NODE, 3, 1); // 3g.20gb on GPU 3
        AllocateResponse r = h.kubelet.allocate("nvidia.com/mig-3g.20gb", List.of(mig));
        assertThat(r.getContainerResponses(0).getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", mig);
        await().atMost(WAIT).until(h::pluginReady);
    }

    @Test
    void preferredAllocationOnH100PicksOneNvlinkNumaIsland() throws Exception {
        h.withKubelet().start("h100-80gb-x8", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT);
        List<String> all =
                List.of(uuid(0), uuid(1), uuid(2), uuid(3), uuid(4), uuid(5), uuid(6), uuid(7));
        // GPU 0 already taken: four from the rest stay on NUMA node 1 (GPUs 4-7), not split over
        // both nodes
        assertThat(h.kubelet.preferredAllocation(GPU, all.subList(1, 8), List.of(), 4))
                .containsExactlyInAnyOrder(uuid(4), uuid(5), uuid(6), uuid(7));
        // must-include GPU 5: its NUMA node mates come with it
        assertThat(h.kubelet.preferredAllocation(GPU, all, List.of(uuid(5)), 2))
                .containsExactly(uuid(5), uuid(4));
        assertThatThrownBy(
                        () -> h.kubelet.preferredAllocation(GPU, List.of("GPU-nope"), List.of(), 1))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> {
                            assertThat(e.getStatus().getCode())
                                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
                            assertThat(e.getStatus().getDescription()).contains("GPU-nope");
                        });
    }

    @Test
    void unknownDeviceIdIsInvalidArgumentNamingTheId() throws Exception {
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of(uuid(0), "GPU-does-not-exist")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> {
                            assertThat(e.getStatus().getCode())
                                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
                            assertThat(e.getStatus().getDescription())
                                    .contains("GPU-does-not-exist");
                        });
        // an index is not an advertised ID either
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of("0")))
                .hasMessageContaining("unknown device: 0");
    }

    @Test
    void sighupReloadReplacesTheResourcesAndABadFileKeepsTheRunningOnes() throws Exception {
        Path config = Files.writeString(tmp.resolve("config.yaml"), "version: v1\n");
        h.withKubelet().start("l4-x2", config, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);

        Files.writeString(
                config,
                """
                version: v1
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 3
                """);
        long before = System.nanoTime();
        h.agent.reload();
        h.kubelet.awaitRegistration("nvidia.com/gpu.shared", before, WAIT);
        assertThat(h.kubelet.awaitDevices("nvidia.com/gpu.shared", d -> d.size() == 6, WAIT))
                .hasSize(6);
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.shared.sock"))).isTrue();
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isFalse();

        Files.writeString(
                config,
                "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}\n");
        h.agent.reload();
        assertThat(h.log())
                .contains("event=reload-failed")
                .contains("replicas: must be at least 2");
        assertThat(h.agent.resources())
                .extracting(r -> r.name())
                .containsExactly("nvidia.com/gpu.shared");
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.shared.sock"))).isTrue();
    }

    @Test
    void aNamedConfigReplacesTheResourcesWithoutARestartAndABadOneIsThrownBack() throws Exception {
        h.withKubelet().start("l4-x2", null, Map.of());
        h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT);
        Path shared =
                Files.writeString(
                        tmp.resolve("ts-4"),
                        "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}\n");
        Path bad =
                Files.writeString(
                        tmp.resolve("bad"),
                        "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}\n");

        // as NodeConfigWatch calls it when the node label names ts-4: the same name, 4x devices
        h.agent.useConfig(shared);
        assertThat(h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT)).hasSize(8);

        assertThatThrownBy(() -> h.agent.useConfig(bad))
                .hasMessageContaining("replicas: must be at least 2");
        assertThat(h.agent.config().sharing().resources()).hasSize(1);
        assertThat(h.kubelet.awaitDevices(GPU, d -> d.size() == 8, WAIT)).hasSize(8);

        // no config (label removed, no default): the --config file, here none
        h.agent.useConfig(null);
        assertThat(h.kubelet.awaitDevices(GPU, d -> d.size() == 2, WAIT)).hasSize(2);
    }

    @Test
    void waitsForToolkitReadyBeforeServing() throws Exception {
        Thread starter = startWaitingForToolkit();
        assertThat(Files.exists(h.pluginDir.resolve("nvidia-gpu.sock"))).isFalse();
        new org.gpuoperator.node.agent.ReadinessFiles(h.validations)
                .markReady("toolkit-ready", Map.of());
        starter.join(WAIT.toMillis());
        h.kubelet.awaitRegistration(GPU, WAIT);
    }

    @Test
    void closeDuringTheToolkitWaitEndsStartAtOnceServingNothing() throws Exception {
        Thread starter = startWaitingForToolkit();
        h.agent.close(); // what SIGTERM's shutdown hook does
        starter.join(Duration.ofSeconds(2).toMillis());
        assertThat(starter.isAlive()).isFalse();
        assertThat(h.log()).contains("event=wait-stopped");
        assertThat(h.pluginReady()).isFalse();
        try (var sockets = Files.list(h.pluginDir)) {
            assertThat(sockets.map(p -> p.getFileName().toString())).containsOnly("kubelet.sock");
        }
    }

    /**
     * Starts the agent on a thread of its own without toolkit-ready; returns once it waits for it.
     */
    private Thread startWaitingForToolkit() throws Exception {
        Files.delete(h.validations.resolve("toolkit-ready"));
        Thread starter =
                Thread.ofPlatform()
                        .start(
                                () -> {
                                    try {
                                        h.withKubelet().start("t4-x1", null, Map.of());
                                    } catch (Exception e) {
                                        throw new RuntimeException(e);
                                    }
                                });
        await().atMost(WAIT).until(() -> h.log().contains("event=waiting-for-predecessor"));
        return starter;
    }

    static List<String> unhealthy(List<Device> devices) {
        return devices.stream()
                .filter(d -> !d.getHealth().equals("Healthy"))
                .map(Device::getID)
                .toList();
    }
}
