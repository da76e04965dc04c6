package org.gpuoperator.exporter.podresources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.kubelet.emulator.PodResourcesEmulator.pod;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.exporter.metrics.GpuMetricFamilies;
import org.gpuoperator.exporter.testing.PrometheusTextParser.Family;
import org.gpuoperator.exporter.testing.PrometheusTextParser.Sample;
import org.gpuoperator.exporter.testing.TestExporter;
import org.gpuoperator.kubelet.emulator.PodResourcesEmulator;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pod labels from a real gRPC pod-resources server on a unix socket (the emulator), through the
 * whole exporter.
 */
class PodAttributionTest {

    @TempDir Path dir;

    private static String gpu(int i) {
        return org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory.gpuUuid(
                TestExporter.NODE, i);
    }

    private static String mig(int i, int gi) {
        return org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory.migUuid(
                TestExporter.NODE, i, gi);
    }

    @Test
    void wholeGpusTimeSlicedGpusAndAPodGoingAway() throws Exception {
        Path socket = dir.resolve("pod-resources/kubelet.sock");
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket);
                TestExporter t =
                        new TestExporter("h100-80gb-x8", dir, socket, Duration.ZERO, "Hostname")) {
            kubelet.setPods(
                    List.of(
                            pod("ml", "trainer-0", "pytorch", "nvidia.com/gpu", gpu(0), gpu(1)),
                            pod(
                                    "team-a",
                                    "notebook-1",
                                    "jupyter",
                                    "nvidia.com/gpu",
                                    gpu(5) + "::0"),
                            pod(
                                    "team-b",
                                    "notebook-2",
                                    "jupyter",
                                    "nvidia.com/gpu",
                                    gpu(5) + "::3"),
                            pod(
                                    "other",
                                    "ghost",
                                    "c",
                                    "nvidia.com/gpu",
                                    "GPU-00000000-0000-0000-0000-000000000000")));
            Map<String, Family> f = t.scrape();
            List<Sample> util = f.get("DCGM_FI_DEV_GPU_UTIL").samples();
            assertThat(holders(util, "0")).containsExactly("ml/trainer-0/pytorch");
            assertThat(holders(util, "1")).containsExactly("ml/trainer-0/pytorch");
            // time-sliced without the kubelet's checkpoint (pod UIDs unknown): the GPU's value per
            // pod
            assertThat(holders(util, "5"))
                    .containsExactlyInAnyOrder(
                            "team-a/notebook-1/jupyter", "team-b/notebook-2/jupyter");
            assertThat(holders(util, "2")).containsExactly("//");
            assertThat(podDevices(f)).isEqualTo(Map.of("mapped", 4.0, "unmapped", 1.0));

            kubelet.setPods(
                    List.of(pod("ml", "trainer-0", "pytorch", "nvidia.com/gpu", gpu(0), gpu(1))));
            String text = t.scrapeText();
            assertThat(text).doesNotContain("notebook-1").doesNotContain("notebook-2");
            assertThat(
                            holders(
                                    org.gpuoperator.exporter.testing.PrometheusTextParser.parse(
                                                    text)
                                            .get("DCGM_FI_DEV_GPU_UTIL")
                                            .samples(),
                                    "5"))
                    .containsExactly("//");
        }
    }

    private static final String UID_A = "aaaaaaaa-0000-4000-8000-00000000000a";
    private static final String UID_B = "bbbbbbbb-0000-4000-8000-00000000000b";

    /** What a node shows of a running container: the runtime's GPU file and its processes. */
    private void containerRunning(String podUid, String containerId, String gpuUuid, long... pids)
            throws Exception {
        Path description =
                dir.resolve(SimulatedGpuProcesses.CONTAINERS_DIR)
                        .resolve(containerId)
                        .resolve(SimulatedGpuProcesses.DESCRIPTION_FILE);
        Files.createDirectories(description.getParent());
        Files.writeString(description, "gpu\t0\t" + gpuUuid + "\tNVIDIA H100 80GB HBM3\n");
        for (long pid : pids) {
            Path cgroup = dir.resolve("proc").resolve(Long.toString(pid)).resolve("cgroup");
            Files.createDirectories(cgroup.getParent());
            Files.writeString(
                    cgroup,
                    "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
                            + podUid.replace('-', '_')
                            + ".slice/cri-containerd-"
                            + containerId
                            + ".scope\n");
        }
    }

    private static double value(List<Sample> samples, String gpu, String pod) {
        return samples.stream()
                .filter(s -> s.labels().get("gpu").equals(gpu))
                .filter(s -> pod.equals(s.labels().getOrDefault("pod", "")))
                .findFirst()
                .orElseThrow()
                .value();
    }

    @Test
    void podsOnATimeSlicedGpuGetTheirOwnUsageFromTheirProcesses() throws Exception {
        String g5 = gpu(5);
        containerRunning(UID_A, "a".repeat(64), g5, 100, 101);
        containerRunning(UID_B, "b".repeat(64), g5, 200);
        Path checkpoint = dir.resolve(TestExporter.CHECKPOINT);
        Files.createDirectories(checkpoint.getParent());
        Files.writeString(
                checkpoint,
                "{\"Data\":{\"PodDeviceEntries\":["
                        + "{\"PodUID\":\""
                        + UID_A
                        + "\",\"ContainerName\":\"jupyter\",\"ResourceName\":\"nvidia.com/gpu\","
                        + "\"DeviceIDs\":{\"-1\":[\""
                        + g5
                        + "::0\"]}},"
                        + "{\"PodUID\":\""
                        + UID_B
                        + "\",\"ContainerName\":\"jupyter\",\"ResourceName\":\"nvidia.com/gpu\","
                        + "\"DeviceIDs\":{\"-1\":[\""
                        + g5
                        + "::3\"]}}]},\"Checksum\":1}");
        Path socket = dir.resolve("pod-resources/kubelet.sock");
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket);
                TestExporter t =
                        new TestExporter("h100-80gb-x8", dir, socket, Duration.ZERO, "Hostname")) {
            kubelet.setPods(
                    List.of(
                            pod("team-a", "notebook-1", "jupyter", "nvidia.com/gpu", g5 + "::0"),
                            pod("team-b", "notebook-2", "jupyter", "nvidia.com/gpu", g5 + "::3")));
            Map<String, Family> f = t.scrape();
            List<GpuProcess> processes = t.simulated.processes(5).orElseThrow();
            assertThat(processes).extracting(GpuProcess::pid).containsExactly(100L, 101L, 200L);
            List<Sample> util = f.get("DCGM_FI_DEV_GPU_UTIL").samples();
            double whole = t.simulated.sample(5).get(GpuMetric.GPU_UTIL).orElseThrow();
            double a =
                    processes.get(0).smUtil().orElseThrow()
                            + processes.get(1).smUtil().orElseThrow();
            double b = processes.get(2).smUtil().orElseThrow();
            assertThat(value(util, "5", "")).isEqualTo(whole);
            assertThat(value(util, "5", "notebook-1")).isEqualTo(a);
            assertThat(value(util, "5", "notebook-2")).isEqualTo(b);
            assertThat(a + b).isEqualTo(whole);
            assertThat(a).isNotEqualTo(b);

            List<Sample> fb = f.get("DCGM_FI_DEV_FB_USED").samples();
            long mib = 1024L * 1024L;
            assertThat(value(fb, "5", "notebook-2"))
                    .isEqualTo((double) (processes.get(2).usedMemoryBytes().orElseThrow() / mib));
            assertThat(value(fb, "5", "notebook-1") + value(fb, "5", "notebook-2"))
                    .isEqualTo(value(fb, "5", ""));
            assertThat(t.log()).doesNotContain("gpu-processes-unavailable");
        }
    }

    @Test
    void migInstancesAreAttributedByMigUuid() throws Exception {
        Path socket = dir.resolve("pod-resources/kubelet.sock");
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket);
                TestExporter t =
                        new TestExporter(
                                "a100-40gb-x8-mig-mixed",
                                dir,
                                socket,
                                Duration.ZERO,
                                "Hostname",
                                MigStrategy.MIXED)) {
            kubelet.setPods(
                    List.of(
                            pod("inf", "small", "server", "nvidia.com/mig-1g.5gb", mig(3, 4)),
                            pod("inf", "big", "server", "nvidia.com/mig-3g.20gb", mig(3, 1))));
            List<Sample> temps = t.scrape().get("DCGM_FI_DEV_GPU_TEMP").samples();
            assertThat(temps)
                    .filteredOn(s -> "small".equals(s.labels().get("pod")))
                    .extracting(
                            s ->
                                    s.labels().get("gpu")
                                            + "-"
                                            + s.labels().get("GPU_I_ID")
                                            + " "
                                            + s.labels().get("GPU_I_PROFILE"))
                    .containsExactly("3-4 1g.5gb");
            assertThat(temps)
                    .filteredOn(s -> "big".equals(s.labels().get("pod")))
                    .extracting(s -> s.labels().get("gpu") + "-" + s.labels().get("GPU_I_ID"))
                    .containsExactly("3-1");
            assertThat(temps).filteredOn(s -> s.labels().containsKey("pod")).hasSize(2);
        }
    }

    @Test
    void oneListAnswerServesScrapesWithinTheCacheTime() throws Exception {
        Path socket = dir.resolve("pod-resources/kubelet.sock");
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket);
                TestExporter t =
                        new TestExporter("t4-x1", dir, socket, Duration.ofMinutes(5), "Hostname")) {
            t.scrape();
            int afterFirst = kubelet.listCalls();
            assertThat(afterFirst).isPositive();
            for (int i = 0; i < 4; i++) {
                t.scrape();
            }
            assertThat(kubelet.listCalls()).isEqualTo(afterFirst);
        }
    }

    @Test
    void withACacheTimeTheKubeletIsAskedInTheBackgroundAndAPodGoingAwayLeavesWithin2CacheTimes()
            throws Exception {
        Path socket = dir.resolve("pod-resources/kubelet.sock");
        Duration ttl = Duration.ofMillis(250);
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket)) {
            try (TestExporter t = new TestExporter("h100-80gb-x8", dir, socket, ttl, "Hostname")) {
                // Before the first scrape the kubelet is not asked, not even at start, and nothing
                // runs in the background: an unscraped exporter stays idle.
                Thread.sleep(ttl.multipliedBy(3).toMillis());
                assertThat(kubelet.listCalls()).isZero();
                assertThat(BackgroundRefreshTest.refreshThreadAlive()).isFalse();
                // From the first scrape on, the background thread asks the kubelet while nobody
                // scrapes.
                t.scrapeText();
                int afterFirst = kubelet.listCalls();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> kubelet.listCalls() >= afterFirst + 2);

                kubelet.setPods(
                        List.of(
                                pod(
                                        "team-a",
                                        "notebook-1",
                                        "jupyter",
                                        "nvidia.com/gpu",
                                        gpu(5) + "::0"),
                                pod("ml", "trainer-0", "pytorch", "nvidia.com/gpu", gpu(0))));
                await().atMost(Duration.ofSeconds(10))
                        .until(
                                () ->
                                        holders(
                                                t.scrape().get("DCGM_FI_DEV_GPU_UTIL").samples(),
                                                "5"),
                                h -> h.equals(List.of("team-a/notebook-1/jupyter")));

                // 2 x ttl, plus slack for a loaded 2-core machine: no scrape-side kubelet call is
                // needed for this.
                kubelet.setPods(
                        List.of(pod("ml", "trainer-0", "pytorch", "nvidia.com/gpu", gpu(0))));
                await().atMost(ttl.multipliedBy(2).plusSeconds(1))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> !t.scrapeText().contains("notebook-1"));
                assertThat(holders(t.scrape().get("DCGM_FI_DEV_GPU_UTIL").samples(), "0"))
                        .containsExactly("ml/trainer-0/pytorch");
            }
            // Closing the exporter stops its refresh thread: no more kubelet calls.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !BackgroundRefreshTest.refreshThreadAlive());
            int afterClose = kubelet.listCalls();
            Thread.sleep(ttl.multipliedBy(2).toMillis());
            assertThat(kubelet.listCalls()).isEqualTo(afterClose);
        }
    }

    @Test
    void aMissingSocketIsReportedOnceAndMetricsFlowWithoutPodLabels() throws Exception {
        try (TestExporter t =
                new TestExporter(
                        "l4-x2",
                        dir,
                        dir.resolve("absent/kubelet.sock"),
                        Duration.ZERO,
                        "Hostname")) {
            // Said at start, before any scrape asks the kubelet.
            assertThat(
                            t.log()
                                    .lines()
                                    .filter(l -> l.contains("event=pod-resources-socket-missing")))
                    .hasSize(1);
            for (int i = 0; i < 3; i++) {
                assertThat(t.scrape().get("DCGM_FI_DEV_GPU_TEMP").samples())
                        .hasSize(2)
                        .allSatisfy(
                                s ->
                                        assertThat(s.labels())
                                                .doesNotContainKeys(
                                                        "pod", "namespace", "container"));
            }
            assertThat(
                            t.log()
                                    .lines()
                                    .filter(l -> l.contains("event=pod-resources-socket-missing")))
                    .hasSize(1);

            // The kubelet appears later: mapping starts without a restart.
            try (PodResourcesEmulator kubelet =
                    PodResourcesEmulator.start(dir.resolve("absent/kubelet.sock"))) {
                kubelet.setPods(List.of(pod("ns", "p", "c", "nvidia.com/gpu", gpu(1))));
                assertThat(holders(t.scrape().get("DCGM_FI_DEV_GPU_TEMP").samples(), "1"))
                        .containsExactly("ns/p/c");
            }
        }
    }

    private static List<String> holders(List<Sample> samples, String gpu) {
        return samples.stream()
                .filter(s -> s.labels().get("gpu").equals(gpu))
                .map(
                        s ->
                                s.labels().getOrDefault("namespace", "")
                                        + "/"
                                        + s.labels().getOrDefault("pod", "")
                                        + "/"
                                        + s.labels().getOrDefault("container", ""))
                .toList();
    }

    private static Map<String, Double> podDevices(Map<String, Family> f) {
        return Map.of(
                "mapped",
                        f.get(GpuMetricFamilies.POD_DEVICES).samples().stream()
                                .filter(s -> s.labels().get("state").equals("mapped"))
                                .findFirst()
                                .orElseThrow()
                                .value(),
                "unmapped",
                        f.get(GpuMetricFamilies.POD_DEVICES).samples().stream()
                                .filter(s -> s.labels().get("state").equals("unmapped"))
                                .findFirst()
                                .orElseThrow()
                                .value());
    }
}
