package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class NodeNetworkTest {

    @Test
    void conflistIsABridgeWithHostLocalIpamUnderTheNodeRootAndLoopback() throws Exception {
        NodeNetwork n = new NodeNetwork(7);
        JsonNode c = new ObjectMapper().readTree(n.conflist(Path.of("/tmp/r")));
        assertThat(c.path("plugins").get(0).path("type").asText()).isEqualTo("bridge");
        assertThat(c.path("plugins").get(0).path("bridge").asText()).isEqualTo("cni-sim7");
        assertThat(c.path("plugins").get(0).path("isGateway").asBoolean()).isTrue();
        assertThat(c.path("plugins").get(0).path("ipMasq").asBoolean()).isFalse();
        JsonNode ipam = c.path("plugins").get(0).path("ipam");
        assertThat(ipam.path("type").asText()).isEqualTo("host-local");
        assertThat(ipam.path("ranges").get(0).get(0).path("subnet").asText())
                .isEqualTo("10.88.7.0/24");
        assertThat(ipam.path("ranges").get(0).get(0).path("gateway").asText())
                .isEqualTo("10.88.7.1");
        assertThat(ipam.path("dataDir").asText()).isEqualTo("/tmp/r/var/lib/cni/networks");
        assertThat(c.path("plugins").get(1).path("type").asText()).isEqualTo("loopback");
        assertThat(n.gateway()).isEqualTo("10.88.7.1");
    }

    @Test
    void twoNodesNeverShareAnIndexAndAReleasedOneIsFreeAgain() {
        NodeNetwork a = NodeNetwork.allocate();
        NodeNetwork b = NodeNetwork.allocate();
        try {
            assertThat(a.index()).isNotEqualTo(b.index());
        } finally {
            NodeNetwork.release(b);
        }
        NodeNetwork c = NodeNetwork.allocate();
        NodeNetwork.release(c);
        NodeNetwork.release(a);
        assertThat(c.index()).isEqualTo(b.index());
    }
}
