package org.gpuoperator.node.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcDevicesTest {

    @Test
    void characterDevicesOnlyInFileOrderFirstOneWins() {
        String text =
                """
                Character devices:
                  1 mem
                195 nvidia-frontend
                236 nvidia-uvm
                237 nvidia-uvm
                not a line
                99999999999 nvidia-huge

                Block devices:
                  8 sd
                195 nvidia-block
                """;
        assertThat(ProcDevices.characterMajors(text))
                .containsExactly(
                        java.util.Map.entry("mem", 1),
                        java.util.Map.entry("nvidia-frontend", 195),
                        java.util.Map.entry("nvidia-uvm", 236));
        assertThat(ProcDevices.characterMajors("")).isEmpty();
    }
}
