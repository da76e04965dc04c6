package org.gpuoperator.toolkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

class CdiSpecTest {

    @TempDir Path host;

    @Test
    @SuppressWarnings("unchecked")
    void specHasOneDeviceByIndexAndUuidPerGpuAndMigDevice() {
        try (GpuInventory inv =
                GpuSourceOptions.of("simulated:a100-40gb-x8-mig-mixed", host, "node-a").open()) {
            Map<String, Object> spec =
                    new Yaml().load(CdiSpec.render(inv.gpus(), inv.node().driverVersion()));
            assertThat(spec)
                    .containsEntry("kind", "nvidia.com/gpu")
                    .containsEntry("cdiVersion", "0.5.0");
            List<Map<String, Object>> devices = (List<Map<String, Object>>) spec.get("devices");
            List<Object> names = devices.stream().map(d -> d.get("name")).toList();
            assertThat(names)
                    .contains(
                            "0",
                            "7",
                            "all",
                            inv.gpus().getFirst().uuid(),
                            inv.gpus().getFirst().mig().devices().getFirst().uuid());
            assertThat(devices).hasSize(8 * 2 + 8 * 4 * 2 + 1);
        }
    }
}
