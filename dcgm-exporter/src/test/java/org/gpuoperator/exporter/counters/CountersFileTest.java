package org.gpuoperator.exporter.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CountersFileTest {

    @Test
    void defaultFileHasTheUsualFieldsAndTheDriverVersionLabel() {
        CountersFile.Parsed p = CountersFile.readDefault();
        assertThat(p.counters())
                .extracting(Counter::name)
                .contains(
                        "DCGM_FI_DEV_GPU_UTIL",
                        "DCGM_FI_DEV_MEM_COPY_UTIL",
                        "DCGM_FI_DEV_FB_USED",
                        "DCGM_FI_DEV_FB_FREE",
                        "DCGM_FI_DEV_GPU_TEMP",
                        "DCGM_FI_DEV_POWER_USAGE",
                        "DCGM_FI_DEV_SM_CLOCK",
                        "DCGM_FI_DEV_MEM_CLOCK",
                        "DCGM_FI_DEV_XID_ERRORS",
                        "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                        "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
                        "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
                        "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
                        "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
                        "DCGM_FI_DRIVER_VERSION");
        assertThat(p.counters())
                .filteredOn(c -> c.name().equals("DCGM_FI_DRIVER_VERSION"))
                .extracting(Counter::type)
                .containsExactly(CounterType.LABEL);
        assertThat(p.counters()).filteredOn(c -> c.type() != CounterType.LABEL).hasSize(30);
        assertThat(p.skipped()).isEmpty();
    }

    @Test
    void readsUpstreamSyntaxCommentsSpacesAndQuotedHelp() {
        CountersFile.Parsed p =
                CountersFile.parse(
                        "f",
                        """
                # comment
                   DCGM_FI_DEV_SM_CLOCK ,  gauge ,  SM clock frequency (in MHz).

                DCGM_FI_DEV_POWER_USAGE, gauge, "Power draw, in W"
                """);
        assertThat(p.counters())
                .containsExactly(
                        new Counter(
                                DcgmField.DCGM_FI_DEV_SM_CLOCK,
                                CounterType.GAUGE,
                                "SM clock frequency (in MHz).",
                                2),
                        new Counter(
                                DcgmField.DCGM_FI_DEV_POWER_USAGE,
                                CounterType.GAUGE,
                                "Power draw, in W",
                                4));
    }

    @Test
    void aFieldThisProjectCannotReadIsSkippedWithItsLine() {
        CountersFile.Parsed p =
                CountersFile.parse(
                        "f",
                        """
                DCGM_FI_DEV_GPU_UTIL, gauge, util
                DCGM_FI_DEV_VGPU_LICENSE_STATUS, gauge, vGPU License status
                """);
        assertThat(p.counters()).extracting(Counter::name).containsExactly("DCGM_FI_DEV_GPU_UTIL");
        assertThat(p.skipped())
                .containsExactly(new CountersFile.Skipped(2, "DCGM_FI_DEV_VGPU_LICENSE_STATUS"));
    }

    @Test
    void malformedLinesAreRejectedWithTheirLineNumber() {
        String ok = "DCGM_FI_DEV_GPU_UTIL, gauge, util\n# c\n";
        assertRejected(ok + "DCGM_FI_DEV_FB_USED, gauge\n", "f:3:", "expected 3 fields");
        assertRejected(ok + "DCGM_FI_DEV_FB_USED, gauge, used, extra\n", "f:3:", "found 4");
        assertRejected(ok + "DCGM_FI_DEV_FB_USED, gaug, used\n", "f:3:", "unknown type 'gaug'");
        assertRejected(ok + "FB_USED, gauge, used\n", "f:3:", "not a DCGM field name");
        assertRejected(
                ok + "DCGM_FI_DEV_GPU_UTIL, gauge, again\n", "f:3:", "already defined on line 1");
        assertRejected(ok + "DCGM_FI_DRIVER_VERSION, gauge, v\n", "f:3:", "type must be label");
        assertRejected(ok + "DCGM_FI_DEV_FB_USED, label, v\n", "f:3:", "only for string fields");
        assertRejected(ok + "DCGM_FI_DEV_FB_USED, gauge, \"unterminated\n", "f:3:", "unterminated");
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> CountersFile.read(dir.resolve("nope.csv")))
                .isInstanceOf(CountersFileException.class)
                .hasMessageContaining("nope.csv");
    }

    @Test
    void readsAFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("c.csv");
        Files.writeString(f, "DCGM_FI_DEV_GPU_TEMP, gauge, temp\nbroken line\n");
        assertThatThrownBy(() -> CountersFile.read(f)).hasMessageStartingWith(f + ":2:");
    }

    private static void assertRejected(String text, String prefix, String what) {
        assertThatThrownBy(() -> CountersFile.parse("f", text))
                .isInstanceOf(CountersFileException.class)
                .hasMessageStartingWith(prefix)
                .hasMessageContaining(what);
    }
}
