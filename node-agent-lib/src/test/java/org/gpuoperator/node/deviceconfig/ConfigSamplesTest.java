package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parser itself over the shared samples; each agent runs the same samples through its own
 * loading path.
 */
class ConfigSamplesTest {

    static List<ConfigSamples.Sample> samples() throws IOException {
        List<ConfigSamples.Sample> all = ConfigSamples.all();
        assertThat(all).anyMatch(ConfigSamples.Sample::accepted).anyMatch(s -> !s.accepted());
        return all;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void theParserAcceptsAndRefusesEachSampleAsItsNameSays(ConfigSamples.Sample sample) {
        sample.check(() -> ConfigFile.read(sample.file()));
    }
}
