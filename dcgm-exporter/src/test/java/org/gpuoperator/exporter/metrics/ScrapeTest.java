package org.gpuoperator.exporter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.exporter.counters.Counter;
import org.gpuoperator.exporter.counters.CounterType;
import org.gpuoperator.exporter.counters.CountersFile;
import org.gpuoperator.exporter.testing.PrometheusTextParser.Family;
import org.gpuoperator.exporter.testing.PrometheusTextParser.Sample;
import org.gpuoperator.exporter.testing.TestExporter;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scrapes over HTTP, parsed with a strict text-format parser, checked against the simulated
 * inventory.
 */
class ScrapeTest {

    @TempDir Path dir;

    private TestExporter start(String profile, String hostnameLabel) throws Exception {
        return new TestExporter(
                profile, dir, dir.resolve("no-kubelet/kubelet.sock"), Duration.ZERO, hostnameLabel);
    }

    @Test
    void everyCounterOfEveryGpuWithUpstreamNamesTypesLabelsAndValues() throws Exception {
        try (TestExporter t = start("h100-80gb-x8", "Hostname")) {
            Map<String, Family> families = t.scrape();
            List<Counter> metrics =
                    CountersFile.readDefault().counters().stream()
                            .filter(c -> c.type() != CounterType.LABEL)
                            .toList();
            for (Counter c : metrics) {
                Family f = families.get(c.name());
                assertThat(f).as(c.name()).isNotNull();
                assertThat(f.type())
                        .as(c.name())
                        .isEqualTo(c.type() == CounterType.GAUGE ? "gauge" : "untyped");
                assertThat(f.help()).isEqualTo(c.help());
                assertThat(f.samples()).as(c.name()).hasSize(8);
                for (Sample s : f.samples()) {
                    assertThat(s.name()).isEqualTo(c.name());
                    Gpu gpu = t.simulated.gpus().get(Integer.parseInt(s.labels().get("gpu")));
                    assertThat(s.labels())
                            .containsExactlyInAnyOrderEntriesOf(
                                    Map.of(
                                            "gpu", Integer.toString(gpu.index()),
                                            "UUID", gpu.uuid(),
                                            "pci_bus_id", gpu.pciBusId(),
                                            "device", "nvidia" + gpu.minorNumber(),
                                            "modelName", "NVIDIA H100 80GB HBM3",
                                            "Hostname", TestExporter.NODE,
                                            "DCGM_FI_DRIVER_VERSION",
                                                    t.simulated.node().driverVersion()));
                    GpuSample expected = t.simulated.sample(gpu.index());
                    assertThat(s.value())
                            .as(c.name() + " of GPU " + gpu.index())
                            .isEqualTo(
                                    expected.get(c.field().metric().orElseThrow()).getAsDouble());
                }
            }
            assertThat(families.get(GpuMetricFamilies.POD_DEVICES).samples())
                    .extracting(Sample::value)
                    .containsOnly(0.0);
        }
    }

    @Test
    void hostnameSpellingIsConfigurable() throws Exception {
        try (TestExporter t = start("t4-x1", "hostname")) {
            Sample s = t.scrape().get("DCGM_FI_DEV_GPU_TEMP").samples().getFirst();
            assertThat(s.labels())
                    .containsEntry("hostname", TestExporter.NODE)
                    .doesNotContainKey("Hostname");
        }
    }

    @Test
    void migInstancesCarryTheirProfileAndIdAndNoWholeGpuReadings() throws Exception {
        try (TestExporter t = start("a100-40gb-x8-mig-mixed", "Hostname")) {
            Map<String, Family> families = t.scrape();
            List<Sample> temps = families.get("DCGM_FI_DEV_GPU_TEMP").samples();
            assertThat(temps).hasSize(8 * 4);
            assertThat(temps)
                    .allSatisfy(
                            s -> assertThat(s.labels()).containsKeys("GPU_I_PROFILE", "GPU_I_ID"));
            assertThat(temps)
                    .filteredOn(s -> s.labels().get("gpu").equals("2"))
                    .extracting(
                            s -> s.labels().get("GPU_I_PROFILE") + "/" + s.labels().get("GPU_I_ID"))
                    .containsExactlyInAnyOrder("3g.20gb/1", "2g.10gb/2", "1g.5gb/3", "1g.5gb/4");
            // Utilisation and framebuffer are per instance in DCGM; the inventory samples whole
            // GPUs only.
            assertThat(families)
                    .doesNotContainKeys(
                            "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_DEC_UTIL");
            assertThat(families.get("DCGM_FI_DEV_ROW_REMAP_FAILURE").samples()).hasSize(8 * 4);
        }
    }

    @Test
    void scrapesServeTheCacheAndNeverReadTheGpus() throws Exception {
        try (TestExporter t = start("h100-80gb-x8", "Hostname")) {
            int afterStart = t.inventory.samples.get();
            assertThat(afterStart).isEqualTo(8);
            for (int i = 0; i < 5; i++) {
                t.scrape();
            }
            assertThat(t.inventory.samples.get()).isEqualTo(afterStart);
        }
    }

    @Test
    void aLostGpuLosesItsSeriesAndComesBack() throws Exception {
        try (TestExporter t = start("l4-x2", "Hostname")) {
            new SimulatedFaults(dir).loseGpu(1);
            t.exporter.sampler().sampleOnce();
            assertThat(gpusOf(t.scrape().get("DCGM_FI_DEV_POWER_USAGE"))).containsExactly("0");
            assertThat(t.log()).contains("event=gpu-unreadable gpu=1");
            new SimulatedFaults(dir).recover(1);
            t.exporter.sampler().sampleOnce();
            assertThat(gpusOf(t.scrape().get("DCGM_FI_DEV_POWER_USAGE")))
                    .containsExactlyInAnyOrder("0", "1");
        }
    }

    @Test
    void anXidShowsInTheXidGauge() throws Exception {
        try (TestExporter t = start("l4-x2", "Hostname")) {
            new SimulatedFaults(dir).injectXid(0, 79);
            t.exporter.sampler().sampleOnce();
            assertThat(t.scrape().get("DCGM_FI_DEV_XID_ERRORS").samples())
                    .filteredOn(s -> s.labels().get("gpu").equals("0"))
                    .extracting(Sample::value)
                    .containsExactly(79.0);
        }
    }

    private static Set<String> gpusOf(Family f) {
        return Set.copyOf(f.samples().stream().map(s -> s.labels().get("gpu")).toList());
    }
}
