package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every row of upstream's getArchFamily table, with the minor-version boundaries of 7.x and 8.x.
 */
class ArchFamilyTest {

    @ParameterizedTest(name = "{0}.{1} -> {2}")
    @CsvSource({
        "1, 0, tesla",
        "1, 3, tesla",
        "2, 0, fermi",
        "2, 1, fermi",
        "3, 0, kepler",
        "3, 7, kepler",
        "5, 0, maxwell",
        "5, 2, maxwell",
        "6, 0, pascal",
        "6, 1, pascal",
        "7, 0, volta",
        "7, 2, volta",
        "7, 4, volta",
        "7, 5, turing",
        "7, 9, turing",
        "8, 0, ampere",
        "8, 6, ampere",
        "8, 7, ampere",
        "8, 8, ampere",
        "8, 9, ada-lovelace",
        "9, 0, hopper",
        "10, 0, blackwell",
        "10, 3, blackwell",
        "12, 0, blackwell",
        "12, 1, blackwell",
        "13, 0, rubin",
        "0, 0, undefined",
        "4, 0, undefined",
        "11, 0, undefined",
        "14, 0, undefined",
        "99, 9, undefined",
    })
    void familyFromComputeCapability(int major, int minor, String family) {
        assertThat(ArchFamily.of(major, minor)).isEqualTo(family);
    }
}
