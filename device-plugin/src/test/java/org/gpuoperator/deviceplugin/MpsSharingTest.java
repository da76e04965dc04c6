package org.gpuoperator.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.StatusRuntimeException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.deviceplugin.allocation.Allocations;
import org.gpuoperator.deviceplugin.mps.MpsDaemonAgent;
import org.gpuoperator.deviceplugin.mps.MpsPaths;
import org.gpuoperator.deviceplugin.mps.SimulatedMpsControl;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MPS end to end on one simulated node: the device plugin offers the replicas Unhealthy until the
 * MPS control daemon agent has started its daemon, then hands each client the daemon's pipe and
 * upstream's limits; the daemon's end makes them Unhealthy again.
 */
class MpsSharingTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final String GPU = "nvidia.com/gpu";
    static final String PROFILE = "l4-x2";

    @TempDir Path tmp;
    AgentHarness h;
    Path mpsRoot;
    Path config;
    MpsDaemonAgent daemon;
    final ByteArrayOutputStream daemonLog = new ByteArrayOutputStream();

    /** The compute modes the daemon agent set, "<gpu>=<exclusive>". */
    final List<String> modes = new java.util.concurrent.CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        h = new AgentHarness(tmp);
        mpsRoot = Files.createTempDirectory("mps"); // short: the control socket's path
        config =
                Files.writeString(
                        tmp.resolve("mps-2"),
                        "version: v1\nsharing: {mps: {resources: [{name: gpu, replicas: 2}]}}\n");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
        h.close();
    }

    private MpsDaemonAgent daemon(Path configFile) {
        return new MpsDaemonAgent(
                mpsRoot,
                Map.of(),
                configFile,
                GpuSourceOptions.of("simulated:" + PROFILE, h.hostRoot, AgentHarness.NODE),
                AgentOptions.of(h.validations, "127.0.0.1:0"),
                recording(new SimulatedMpsControl()),
                new EventLog(
                        "mps-control-daemon",
                        new PrintStream(daemonLog, true, StandardCharsets.UTF_8)));
    }

    /** The simulated control, recording each compute mode set. */
    private org.gpuoperator.deviceplugin.mps.MpsControl recording(
            org.gpuoperator.deviceplugin.mps.MpsControl real) {
        return new org.gpuoperator.deviceplugin.mps.MpsControl() {
            @Override
            public Daemon start(MpsPaths paths, List<org.gpuoperator.node.inventory.Gpu> gpus)
                    throws java.io.IOException {
                return real.start(paths, gpus);
            }

            @Override
            public String send(MpsPaths paths, String command) throws java.io.IOException {
                return real.send(paths, command);
            }

            @Override
            public void computeMode(org.gpuoperator.node.inventory.Gpu gpu, boolean exclusive)
                    throws java.io.IOException {
                modes.add(gpu.index() + "=" + exclusive);
                real.computeMode(gpu, exclusive);
            }
        };
    }

    private static boolean all(List<Device> devices, String health) {
        return devices.size() == 4 && devices.stream().allMatch(d -> d.getHealth().equals(health));
    }

    @Test
    void theReplicasWaitForTheDaemonThenCarryItsPipeAndLimits() throws Exception {
        h.withKubelet().start(PROFILE, config, Map.of(), Map.of("MPS_ROOT", mpsRoot.toString()));
        h.kubelet.awaitDevices(GPU, d -> all(d, "Unhealthy"), WAIT);
        // the health change reaches the kubelet before its log line is written: await both
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(h.log())
                                        .contains("event=mps-daemon-not-ready")
                                        .contains(".started is absent"));
        String first = h.kubelet.devices(GPU).getFirst().getID();
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of(first)))
                .isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("unhealthy");

        daemon = daemon(config);
        daemon.start();
        assertThat(daemon.ready()).isTrue();
        assertThat(daemon.runningResources()).containsExactly(GPU);
        MpsPaths paths = new MpsPaths(mpsRoot, GPU);
        assertThat(paths.started()).exists();
        assertThat(paths.log().resolve(MpsPaths.CONTROL_LOG)).exists();
        SimulatedMpsControl client = new SimulatedMpsControl();
        assertThat(client.send(paths, "get_default_active_thread_percentage")).isEqualTo("50.0");
        long memory;
        try (GpuInventory inv =
                GpuSourceOptions.of("simulated:" + PROFILE, h.hostRoot, AgentHarness.NODE).open()) {
            memory = inv.gpus().getFirst().memoryMiB();
        }
        assertThat(client.send(paths, "get_default_device_pinned_mem_limit 1"))
                .isEqualTo(memory / 2 + "M");

        h.kubelet.awaitDevices(GPU, d -> all(d, "Healthy"), WAIT);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(h.log()).contains("event=mps-daemon-ready"));
        ContainerAllocateResponse r =
                h.kubelet.allocate(GPU, List.of(first)).getContainerResponses(0);
        assertThat(r.getEnvsMap())
                .containsEntry(Allocations.MPS_PIPE_ENV, "/mps/nvidia.com/gpu/pipe")
                .containsEntry(Allocations.MPS_LOG_ENV, "/mps/nvidia.com/gpu/log")
                .containsEntry(Allocations.MPS_THREADS_ENV, "50")
                .containsEntry(Allocations.MPS_PINNED_ENV, "0=" + memory / 2 + "M");
        assertThat(r.getMountsList())
                .extracting(Mount::getHostPath, Mount::getContainerPath)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(
                                paths.pipe().toString(), "/mps/nvidia.com/gpu/pipe"),
                        org.assertj.core.groups.Tuple.tuple(paths.shm().toString(), "/dev/shm"));
        // MPS refuses a request for two replicas by default, as upstream
        String second = h.kubelet.devices(GPU).get(1).getID();
        assertThatThrownBy(() -> h.kubelet.allocate(GPU, List.of(first, second)))
                .hasMessageContaining("maximum request size for shared resources is 1");

        daemon.close(); // SIGTERM: the daemons stop, .started goes
        assertThat(paths.started()).doesNotExist();
        h.kubelet.awaitDevices(GPU, d -> all(d, "Unhealthy"), WAIT);
    }

    @Test
    void aConfigWithoutMpsStopsTheDaemonAndABadOneLeavesItRunning() throws Exception {
        daemon = daemon(config);
        daemon.start();
        MpsPaths paths = new MpsPaths(mpsRoot, GPU);
        assertThat(paths.started()).exists();
        assertThat(modes).containsExactly("0=true", "1=true");

        Path mig =
                Files.writeString(
                        tmp.resolve("bad"),
                        "version: v1\nsharing: {mps: {resources: [{name: mig-1g.5gb, replicas: 2}]}}\n");
        assertThatThrownBy(() -> daemon.useConfig(mig))
                .hasMessageContaining("MPS shares whole GPUs only");
        assertThat(daemon.runningResources()).containsExactly(GPU);

        Path four =
                Files.writeString(
                        tmp.resolve("mps-4"),
                        "version: v1\nsharing: {mps: {resources: [{name: gpu, replicas: 4}]}}\n");
        daemon.useConfig(four); // new limits: the daemon restarts with them
        assertThat(new SimulatedMpsControl().send(paths, "get_default_active_thread_percentage"))
                .isEqualTo("25.0");

        modes.clear();
        daemon.useConfig(null);
        assertThat(daemon.runningResources()).isEmpty();
        // without MPS the GPUs go back to DEFAULT, where time-slicing's processes can share them
        assertThat(modes).containsExactly("0=false", "1=false");
        assertThat(paths.started()).doesNotExist();
        assertThatThrownBy(
                        () ->
                                new SimulatedMpsControl()
                                        .send(paths, "get_default_active_thread_percentage"))
                .hasMessageContaining("no MPS control daemon answers");
        assertThat(daemon.ready()).isTrue(); // nothing wanted, nothing missing
        assertThat(daemonLog.toString(StandardCharsets.UTF_8))
                .contains("event=mps-daemon-started")
                .contains("event=mps-daemon-stopped");
    }

    @Test
    void aStaleStartedFileOfADeadDaemonIsRemovedAtStart() throws Exception {
        MpsPaths paths = new MpsPaths(mpsRoot, GPU);
        Files.createDirectories(paths.dir());
        Files.writeString(paths.started(), "replicas=2\n");
        daemon = daemon(null); // no MPS in the config now
        daemon.start();
        assertThat(paths.started()).doesNotExist();
    }
}
