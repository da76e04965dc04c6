package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProductNamesTest {

    @ParameterizedTest(name = "[{0}] -> [{1}]")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '\'',
            value = {
                // upstream's own table (lm/resource_test.go)
                "NVIDIA-TITAN-X-(Pascal)            | NVIDIA-TITAN-X-Pascal",
                "'some / thing /else'               | some-thing-else",
                "' input  with multiple   spaces   '| input-with-multiple-spaces",
                "some-thing.else_new                | some-thing.else_new",
                // NVML product names as drivers report them
                "NVIDIA H100 80GB HBM3              | NVIDIA-H100-80GB-HBM3",
                "NVIDIA A100-SXM4-40GB              | NVIDIA-A100-SXM4-40GB",
                "NVIDIA A100-SXM4-80GB              | NVIDIA-A100-SXM4-80GB",
                "Tesla T4                           | Tesla-T4",
                "NVIDIA L4                          | NVIDIA-L4",
                "NVIDIA GeForce RTX 4090            | NVIDIA-GeForce-RTX-4090",
                "Tesla V100-SXM2-16GB               | Tesla-V100-SXM2-16GB",
                // DMI product names for gpu.machine
                "DGX A100                           | DGX-A100",
                "p4d.24xlarge                       | p4d.24xlarge",
                "'ProLiant DL380 Gen10 (Rev: 2)'    | ProLiant-DL380-Gen10-Rev-2",
                "'Standard_ND96asr_v4'              | Standard_ND96asr_v4",
                "'tab\tseparated'                   | tabseparated",
                "'äöü GPU+™'                        | GPU",
                "'()'                               | ''",
            })
    void sanitise(String input, String expected) {
        assertThat(ProductNames.sanitise(input)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "shared={0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "false | Tesla T4              | ''      | ''        | Tesla-T4",
                "true  | Tesla T4              | ''      | ''        | Tesla-T4-SHARED",
                "false | NVIDIA A100-SXM4-40GB | MIG     | 1g.5gb    | NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                "true  | NVIDIA A100-SXM4-40GB | MIG     | 1g.5gb    | NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED",
                "false | NVIDIA A100-SXM4-40GB | MIG     | INVALID   | NVIDIA-A100-SXM4-40GB-MIG-INVALID",
                "true  | ''                    | ''      | ''        | ''",
            })
    void productJoinsSanitisedPartsAndMarksSharing(
            boolean shared, String model, String mig, String profile, String expected) {
        assertThat(ProductNames.product(shared, model, mig, profile)).isEqualTo(expected);
    }
}
