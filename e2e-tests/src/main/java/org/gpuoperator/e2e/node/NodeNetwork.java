package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One simulated node's pod network: a Linux bridge {@code cni-sim<N>} with subnet {@code
 * 10.88.<N>.0/24}. The bridge's gateway address {@code 10.88.<N>.1} is a host address, so it
 * doubles as the node's address: pods reach the host (and the API server, if it listens there)
 * through it, and the host reaches pods on their pod IPs.
 */
public record NodeNetwork(int index) {

    /**
     * Held for as long as a node uses the index: the lock file tells other JVMs on this host (other
     * test runs).
     */
    private static final Map<Integer, FileChannel> TAKEN = new HashMap<>();

    private static final Path LOCK_DIR = Path.of("/tmp/gpuop-cni-sim");
    static final int MIN_INDEX = 1;
    static final int MAX_INDEX = 254;

    public NodeNetwork {
        if (index < MIN_INDEX || index > MAX_INDEX) {
            throw new IllegalArgumentException("node network index must be 1..254, got " + index);
        }
    }

    /**
     * The lowest index no node on this host holds (in this JVM or another, by an exclusive lock on
     * {@code /tmp/gpuop-cni-sim/<N>.lock}): two nodes on one bridge would hand out the same pod IPs
     * from their separate IPAM stores. A bridge left by a run that crashed is reused as it is.
     */
    public static synchronized NodeNetwork allocate() {
        try {
            Files.createDirectories(LOCK_DIR);
            for (int i = MIN_INDEX; i <= MAX_INDEX; i++) {
                if (TAKEN.containsKey(i)) {
                    continue;
                }
                FileChannel ch =
                        FileChannel.open(
                                LOCK_DIR.resolve(i + ".lock"),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    lock = null;
                }
                if (lock == null) {
                    ch.close();
                    continue;
                }
                TAKEN.put(i, ch);
                return new NodeNetwork(i);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot lock a simulated node network under " + LOCK_DIR, e);
        }
        throw new IllegalStateException(
                "no free simulated node network (cni-sim1..254 all in use)");
    }

    public static synchronized void release(NodeNetwork network) {
        FileChannel ch = TAKEN.remove(network.index);
        if (ch != null) {
            try {
                ch.close(); // releases the lock
            } catch (IOException e) {
                // the lock goes with the process anyway
            }
        }
    }

    /**
     * The gateway of every index: the addresses an API server certificate must name to serve any
     * node's pods.
     */
    public static List<String> allGateways() {
        List<String> out = new ArrayList<>();
        for (int i = MIN_INDEX; i <= MAX_INDEX; i++) {
            out.add(new NodeNetwork(i).gateway());
        }
        return out;
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
                """
                .formatted(
                        networkName(),
                        bridge(),
                        subnet(),
                        gateway(),
                        nodeRoot.resolve("var/lib/cni/networks"));
    }
}
