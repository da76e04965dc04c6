package org.gpuoperator.deviceplugin.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.node.inventory.HealthEvent;
import org.gpuoperator.node.inventory.HealthEvent.Kind;
import org.junit.jupiter.api.Test;

class HealthTest {

    static final PluginDevice GPU0 =
            new PluginDevice("GPU-0", "GPU-0", "0", 0, 0, List.of("/dev/nvidia0"), -1, false);
    static final PluginDevice GPU1 =
            new PluginDevice("GPU-1", "GPU-1", "1", 1, 0, List.of("/dev/nvidia1"), -1, false);
    static final PluginDevice MIG_A =
            new PluginDevice("MIG-a", "MIG-a", "1:0", 1, 0, List.of("/dev/nvidia1"), -1, true);
    static final PluginDevice MIG_B =
            new PluginDevice("MIG-b", "MIG-b", "1:1", 1, 0, List.of("/dev/nvidia1"), -1, true);

    static HealthEvent ev(int gpu, String uuid, Kind kind, long xid) {
        return new HealthEvent(gpu, uuid, kind, xid, 0);
    }

    @Test
    void defaultPolicyIgnoresUpstreamsApplicationXids() {
        HealthPolicy p = HealthPolicy.defaults();
        for (long xid : List.of(13L, 31L, 43L, 45L, 68L, 109L)) {
            assertThat(p.critical(xid)).as("xid %d", xid).isFalse();
        }
        for (long xid : List.of(48L, 63L, 74L, 79L, 94L, 95L)) {
            assertThat(p.critical(xid)).as("xid %d", xid).isTrue();
        }
    }

    @Test
    void policyIsConfigurableLikeUpstreamsEnvironment() {
        assertThat(HealthPolicy.parse("79", null).critical(79)).isFalse();
        assertThat(HealthPolicy.parse("all", null).enabled()).isFalse();
        assertThat(HealthPolicy.parse("xids", null).critical(79)).isFalse();
        assertThat(HealthPolicy.parse(null, "13,31").critical(13)).isTrue();
        assertThat(HealthPolicy.parse(null, "13,31").critical(43)).isFalse();
        assertThatThrownBy(() -> HealthPolicy.parse("13,x", null))
                .hasMessageContaining("DP_DISABLE_HEALTHCHECKS: 'x' is not an XID number");
    }

    @Test
    void gpuFaultCoversItsMigDevicesAndRecoveryClearsThem() {
        DeviceHealth h = new DeviceHealth();
        AtomicInteger notified = new AtomicInteger();
        h.addListener(notified::incrementAndGet);
        HealthPolicy p = HealthPolicy.defaults();

        assertThat(h.apply(ev(1, "GPU-1", Kind.XID, 13), p)).isNull();
        assertThat(notified).hasValue(0);

        assertThat(h.apply(ev(1, "MIG-a", Kind.XID, 79), p)).isNotNull();
        assertThat(h.healthy(MIG_A)).isFalse();
        assertThat(h.healthy(MIG_B)).isTrue();
        assertThat(h.healthy(GPU1)).as("a MIG-scoped fault leaves the whole-GPU entry").isTrue();

        h.apply(ev(1, "GPU-1", Kind.GPU_LOST, 0), p);
        assertThat(h.healthy(MIG_B)).isFalse();
        assertThat(h.reason(GPU1)).isEqualTo("gpu-lost");
        assertThat(h.healthy(GPU0)).isTrue();
        assertThat(h.apply(ev(1, "GPU-1", Kind.GPU_LOST, 0), p))
                .as("repeat changes nothing")
                .isNull();

        assertThat(h.apply(ev(1, "GPU-1", Kind.RECOVERED, 0), p).healthy()).isTrue();
        assertThat(h.healthy(GPU1)).isTrue();
        assertThat(h.healthy(MIG_A)).isTrue();
        assertThat(h.apply(ev(0, "GPU-0", Kind.RECOVERED, 0), p)).as("nothing to recover").isNull();
        assertThat(notified).hasValue(3);
    }

    @Test
    void disabledPolicyChangesNothing() {
        DeviceHealth h = new DeviceHealth();
        assertThat(h.apply(ev(0, "GPU-0", Kind.GPU_LOST, 0), HealthPolicy.parse("all", null)))
                .isNull();
        assertThat(h.healthy(GPU0)).isTrue();
    }
}
