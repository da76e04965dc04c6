package org.gpuoperator.exporter.counters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.exporter.testing.PrometheusTextParser.Family;
import org.gpuoperator.exporter.testing.TestExporter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream dcgm-exporter's {@code etc/default-counters.csv} and {@code
 * etc/dcp-metrics-included.csv}, kept unchanged in {@code src/test/resources/upstream/} (source and
 * commit in the README there): they load as they are, what this exporter can read is served, and
 * each field it cannot read is named once at start.
 */
class UpstreamCountersFilesTest {

    @TempDir Path dir;

    /** The fields both upstream files enable, in file order, all of which this exporter reads. */
    private static final List<String> SERVED =
            List.of(
                    "DCGM_FI_DEV_SM_CLOCK",
                    "DCGM_FI_DEV_MEM_CLOCK",
                    "DCGM_FI_DEV_MEMORY_TEMP",
                    "DCGM_FI_DEV_GPU_TEMP",
                    "DCGM_FI_DEV_POWER_USAGE",
                    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                    "DCGM_FI_DEV_GPU_UTIL",
                    "DCGM_FI_DEV_MEM_COPY_UTIL",
                    "DCGM_FI_DEV_ENC_UTIL",
                    "DCGM_FI_DEV_DEC_UTIL",
                    "DCGM_FI_DEV_XID_ERRORS",
                    "DCGM_FI_DEV_FB_FREE",
                    "DCGM_FI_DEV_FB_USED",
                    "DCGM_FI_DEV_FB_RESERVED",
                    "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL",
                    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
                    "DCGM_FI_DEV_ROW_REMAP_FAILURE",
                    "DCGM_FI_DRIVER_VERSION",
                    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                    "DCGM_FI_PROF_DRAM_ACTIVE",
                    "DCGM_FI_PROF_PCIE_TX_BYTES",
                    "DCGM_FI_PROF_PCIE_RX_BYTES");

    private static final List<String> PROFILING =
            SERVED.stream().filter(n -> n.startsWith("DCGM_FI_PROF_")).toList();

    static CountersFile.Parsed upstream(String name) throws IOException {
        try (InputStream in =
                UpstreamCountersFilesTest.class.getResourceAsStream("/upstream/" + name)) {
            assertThat(in).as("test resource upstream/" + name).isNotNull();
            return CountersFile.parse(
                    "upstream " + name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void bothFilesLoadUnchangedAndOnlyTheVgpuLicenseFieldIsUnavailable() throws IOException {
        for (String file : List.of("default-counters.csv", "dcp-metrics-included.csv")) {
            CountersFile.Parsed p = upstream(file);
            assertThat(p.counters()).extracting(Counter::name).as(file).isEqualTo(SERVED);
            assertThat(p.skipped())
                    .extracting(CountersFile.Skipped::field)
                    .as(file)
                    .containsExactly("DCGM_FI_DEV_VGPU_LICENSE_STATUS");
        }
    }

    @Test
    void onAHopperNodeEveryEnabledFieldIsServedAndTheUnavailableOneNamedOnce() throws Exception {
        try (TestExporter t =
                TestExporter.withCounters("h100-80gb-x8", dir, upstream("default-counters.csv"))) {
            Map<String, Family> families = t.scrape();
            for (String name : SERVED) {
                if (name.equals("DCGM_FI_DRIVER_VERSION")) {
                    continue; // a label on every series
                }
                assertThat(families.get(name)).as(name).isNotNull();
                assertThat(families.get(name).samples()).as(name).hasSize(8);
            }
            assertThat(families.get("DCGM_FI_DEV_GPU_UTIL").samples().getFirst().labels())
                    .containsKey("DCGM_FI_DRIVER_VERSION");
            assertThat(families).doesNotContainKey("DCGM_FI_DEV_VGPU_LICENSE_STATUS");
            assertThat(occurrences(t.log(), "event=counter-skipped")).isEqualTo(1);
            assertThat(t.log())
                    .contains("field=DCGM_FI_DEV_VGPU_LICENSE_STATUS")
                    .doesNotContain("profiling-unavailable");
        }
    }

    @Test
    void withoutGpmTheProfilingSeriesAreAbsentWithOneLogLine() throws Exception {
        try (TestExporter t =
                TestExporter.withCounters(
                        "a100-40gb-x8", dir, upstream("dcp-metrics-included.csv"))) {
            Map<String, Family> families = t.scrape();
            for (String name : PROFILING) {
                assertThat(families).as(name).doesNotContainKey(name);
            }
            assertThat(families.get("DCGM_FI_DEV_ROW_REMAP_FAILURE").samples()).hasSize(8);
            assertThat(families.get("DCGM_FI_DEV_ENC_UTIL").samples()).hasSize(8);
            t.scrape();
            assertThat(occurrences(t.log(), "profiling-unavailable")).isEqualTo(1);
            assertThat(t.log())
                    .contains("gpus=0,1,2,3,4,5,6,7")
                    .contains("fields=" + String.join(",", PROFILING));
        }
    }

    private static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
