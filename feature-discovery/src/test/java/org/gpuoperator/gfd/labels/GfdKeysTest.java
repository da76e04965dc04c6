package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GfdKeysTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "nvidia.com/gfd.timestamp",
                "nvidia.com/gpu.machine",
                "nvidia.com/gpu.product",
                "nvidia.com/gpu.count",
                "nvidia.com/gpu.memory",
                "nvidia.com/gpu.family",
                "nvidia.com/gpu.compute.major",
                "nvidia.com/gpu.replicas",
                "nvidia.com/gpu.sharing-strategy",
                "nvidia.com/gpu.mode",
                "nvidia.com/cuda.driver.rev",
                "nvidia.com/cuda.driver-version.full",
                "nvidia.com/cuda.runtime-version.full",
                "nvidia.com/mig.capable",
                "nvidia.com/mig.strategy",
                "nvidia.com/mps.capable",
                "nvidia.com/mig-1g.5gb.count",
                "nvidia.com/mig-1g.10gb.me.product",
                "nvidia.com/mig-3g.20gb.engines.ofa",
                "nvidia.com/gpu.slices.gi",
                "nvidia.com/vgpu.present"
            })
    void gfdKeys(String key) {
        assertThat(GfdKeys.owned(key)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "nvidia.com/gpu.present",
                "nvidia.com/gpu.deploy.driver",
                "nvidia.com/gpu.deploy.gpu-feature-discovery",
                "nvidia.com/gpu.deploy.operands",
                "nvidia.com/mig.config",
                "nvidia.com/mig.config.state",
                "nvidia.com/device-plugin.config",
                "nvidia.com/gpu.workload.config",
                "nvidia.com/gfd.labels",
                "nvidia.com/custom",
                "gpu.product",
                "example.com/gpu.product",
                "feature.node.kubernetes.io/pci-10de.present",
                "nvidia.com/gpu.product.extra",
                "nvidia.com/mig-.count"
            })
    void foreignKeys(String key) {
        assertThat(GfdKeys.owned(key)).isFalse();
    }
}
