package org.gpuoperator.e2e.node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * One simulated node's pod network: a Linux bridge {@code cni-sim<N>} with subnet {@code 10.88.<N>.0/24}. The bridge's
 * gateway address {@code 10.88.<N>.1} is a host address, so it doubles as the node's address: pods reach the host
 * (and the API server, if it listens there) through it, and the host reaches pods on their pod IPs.
 */
public record NodeNetwork(int index) {

    private static final Set<Integer> TAKEN = new HashSet<>();

    public NodeNetwork {
        if (index < 1 || index > 254) {
            throw new IllegalArgumentException("node network index must be 1..254, got " + index);
        }
    }

    /**
     * The lowest index neither taken in this JVM nor by a bridge that exists on the host (another test run's node):
     * two nodes on one bridge would get the same pod IPs from their separate IPAM stores.
     */
    public static synchronized NodeNetwork allocate() {
        for (int i = 1; i <= 254; i++) {
            if (!TAKEN.contains(i) && !Files.exists(Path.of("/sys/class/net/cni-sim" + i))) {
                TAKEN.add(i);
                return new NodeNetwork(i);
            }
        }
        throw new IllegalStateException("no free simulated node network (cni-sim1..254 all in use)");
    }

    public static synchronized void release(NodeNetwork network) {
        TAKEN.remove(network.index);
    }

    public String bridge() {
        return "cni-sim" + index;
    }

    public String subnet() {
        return "10.88." + index + ".0/24";
    }

    public String gateway() {
        return "10.88." + index + ".1";
    }

    public String networkName() {
        return "sim-node-" + index;
    }

    /** The CNI conflist: bridge with host-local IPAM (state under the node root), and loopback. */
    public String conflist(Path nodeRoot) {
        return """
                {
                  "cniVersion": "1.0.0",
                  "name": "%s",
                  "plugins": [
                    {
                      "type": "bridge",
                      "bridge": "%s",
                      "isGateway": true,
                      "ipMasq": false,
                      "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": "%s", "gateway": "%s"}]],
                        "routes": [{"dst": "0.0.0.0/0"}],
                        "dataDir": "%s"
                      }
                    },
                    {"type": "loopback"}
                  ]
                }
                """.formatted(networkName(), bridge(), subnet(), gateway(), nodeRoot.resolve("var/lib/cni/networks"));
    }
}
