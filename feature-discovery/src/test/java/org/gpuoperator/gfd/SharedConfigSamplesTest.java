package org.gpuoperator.gfd;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.deviceconfig.ConfigSamples;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feature discovery accepts and refuses the same config files as the device plugin (which runs the
 * same samples).
 */
class SharedConfigSamplesTest {

    static List<ConfigSamples.Sample> samples() throws IOException {
        return ConfigSamples.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void loadsEachSampleAsTheDevicePluginDoes(ConfigSamples.Sample sample) {
        Settings.Flags flags =
                new Settings.Flags(null, null, null, null, null, null, null, sample.file());
        EventLog log = new EventLog("test", new PrintStream(new ByteArrayOutputStream()));
        sample.check(() -> FeatureDiscoveryMain.loadSettings(flags, Map.of(), log));
    }
}
