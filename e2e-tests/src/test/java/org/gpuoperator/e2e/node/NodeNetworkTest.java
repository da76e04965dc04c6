package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    @Test
    void anIndexWhoseBridgeExistsIsSkippedEvenWhenItsLockIsFree() {
        // cni-sim1 was left by a killed run; cni-sim2 is held by a live one
        Set<Integer> locked = new HashSet<>(Set.of(2));
        int got = NodeNetwork.choose(i -> i == 1, locked::add);
        assertThat(got).isEqualTo(3);
    }

    @Test
    void twoRunsSideBySideNeverGetTheSameIndex() {
        // one lock table for the host, as flock is; each run asks for two nodes
        Set<Integer> host = new HashSet<>();
        List<Integer> runA = new ArrayList<>();
        List<Integer> runB = new ArrayList<>();
        for (int n = 0; n < 2; n++) {
            runA.add(NodeNetwork.choose(i -> false, host::add));
            runB.add(NodeNetwork.choose(i -> false, host::add));
        }
        assertThat(runA).doesNotContainAnyElementsOf(runB).doesNotContain(-1);
        assertThat(runB).doesNotContain(-1).doesNotHaveDuplicates();
    }

    @Test
    void noFreeIndexIsMinusOne() {
        assertThat(NodeNetwork.choose(i -> true, i -> true)).isEqualTo(-1);
        assertThat(NodeNetwork.choose(i -> false, i -> false)).isEqualTo(-1);
    }

    @Test
    void aHeldSlotCannotBeClaimedAsIdle() throws Exception {
        NodeNetwork a = NodeNetwork.allocate();
        try {
            assertThat(NodeNetwork.claimIdle(a.index())).isEmpty();
        } finally {
            NodeNetwork.release(a);
        }
        var claimed = NodeNetwork.claimIdle(a.index());
        assertThat(claimed).isPresent();
        claimed.get().close();
    }
}
