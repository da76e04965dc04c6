package org.gpuoperator.deviceplugin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.deviceplugin.health.HealthPolicy;
import org.gpuoperator.node.deviceconfig.ConfigSamples;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The device plugin accepts and refuses the same config files as feature discovery (which runs the
 * same samples).
 */
class SharedConfigSamplesTest {

    static List<ConfigSamples.Sample> samples() throws IOException {
        return ConfigSamples.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void loadsEachSampleAsFeatureDiscoveryDoes(ConfigSamples.Sample sample) {
        var settings =
                new DevicePluginAgent.Settings(
                        Path.of("/unused"),
                        sample.file(),
                        Map.of(),
                        Map.of(),
                        HealthPolicy.defaults());
        sample.check(() -> DevicePluginAgent.loadConfig(settings));
    }
}
