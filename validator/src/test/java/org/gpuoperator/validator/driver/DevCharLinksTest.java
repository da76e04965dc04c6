package org.gpuoperator.validator.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevCharLinksTest {

    @TempDir Path host;

    @Test
    void oneRelativeLinkPerDeviceNodeNamedByItsNumber() {
        assertThat(
                        DevCharLinks.plan(
                                List.of(
                                        new DeviceNode("nvidiactl", 195, 255),
                                        new DeviceNode("nvidia3", 195, 3))))
                .containsExactly(
                        new DevCharLinks.Link("195:255", "../nvidiactl"),
                        new DevCharLinks.Link("195:3", "../nvidia3"));
    }

    @Test
    void applyingTwiceChangesNothingAndAWrongLinkIsReplaced() throws Exception {
        List<DevCharLinks.Link> plan = List.of(new DevCharLinks.Link("195:0", "../nvidia0"));
        assertThat(DevCharLinks.apply(host, plan)).hasSize(1);
        assertThat(DevCharLinks.apply(host, plan)).isEmpty();
        Path link = host.resolve("dev/char/195:0");
        Files.delete(link);
        Files.createSymbolicLink(link, Path.of("../elsewhere"));
        assertThat(DevCharLinks.apply(host, plan)).containsExactly(link);
        assertThat(Files.readSymbolicLink(link)).isEqualTo(Path.of("../nvidia0"));
    }

    @Test
    void theStandardNumberingAndTheLinuxDevTEncoding() {
        assertThat(DeviceNode.standard("nvidiactl"))
                .isEqualTo(new DeviceNode("nvidiactl", 195, 255));
        assertThat(DeviceNode.standard("nvidia7")).isEqualTo(new DeviceNode("nvidia7", 195, 7));
        assertThatThrownBy(() -> DeviceNode.standard("nvidia-uvm"))
                .hasMessageContaining("nvidia-uvm");
        // makedev(195, 255) and makedev(511, 300) as glibc encodes them
        assertThat(DeviceNode.major(0xC3FFL)).isEqualTo(195);
        assertThat(DeviceNode.minor(0xC3FFL)).isEqualTo(255);
        long big = ((511L & 0xfff) << 8) | (300L & 0xff) | ((300L & ~0xffL) << 12);
        assertThat(DeviceNode.major(big)).isEqualTo(511);
        assertThat(DeviceNode.minor(big)).isEqualTo(300);
    }

    @Test
    void aRealCharacterDeviceIsReadWithItsOwnNumber() throws Exception {
        // /dev/null is 1:3 on Linux
        assertThat(DeviceNode.read(Path.of("/dev/null"))).isEqualTo(new DeviceNode("null", 1, 3));
    }
}
