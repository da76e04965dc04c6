package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
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
import java.util.Optional;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;

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

    /** Where the host's network links are listed. */
    private static final Path SYS_NET = Path.of("/sys/class/net");

    /** The bridge of every slot: {@code cni-sim<N>}. */
    public static final Pattern BRIDGE = Pattern.compile("cni-sim(\\d{1,3})");

    static final int MIN_INDEX = 1;
    static final int MAX_INDEX = 254;

    public NodeNetwork {
        if (index < MIN_INDEX || index > MAX_INDEX) {
            throw new IllegalArgumentException("node network index must be 1..254, got " + index);
        }
    }

    /**
     * The lowest index that no node on this host holds (in this JVM or another, by an exclusive
     * lock on {@code /tmp/gpuop-cni-sim/<N>.lock}) and whose bridge does not exist: two nodes on
     * one bridge would hand out the same pod IPs from their separate IPAM stores, and a bridge left
     * by a killed run may still carry that run's containers (which would answer the new run's
     * probes). The lock file then names its owner ({@link RunOwner}); the lock goes with the
     * process.
     */
    public static synchronized NodeNetwork allocate() {
        try {
            Files.createDirectories(LOCK_DIR);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot lock a simulated node network under " + LOCK_DIR, e);
        }
        int index = choose(i -> Files.exists(SYS_NET.resolve("cni-sim" + i)), NodeNetwork::take);
        if (index < 0) {
            throw new IllegalStateException(
                    "no free simulated node network (cni-sim1..254 all in use or left by killed"
                            + " runs: bin/simulate --clean removes those)");
        }
        return new NodeNetwork(index);
    }

    /**
     * The lowest index whose bridge does not exist and that {@code take} gets (it is asked only for
     * those, in order).
     */
    static int choose(IntPredicate bridgeExists, IntPredicate take) {
        for (int i = MIN_INDEX; i <= MAX_INDEX; i++) {
            if (!bridgeExists.test(i) && take.test(i)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean take(int i) {
        if (TAKEN.containsKey(i)) {
            return false;
        }
        try {
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
                return false;
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((RunOwner.current().format() + "\n").getBytes()), 0);
            TAKEN.put(i, ch);
            return true;
        } catch (IOException e) {
            return false; // another user's lock file: not ours to use
        }
    }

    /**
     * Takes the slot's lock if no process holds it, for as long as a clean-up removes what a dead
     * run left on it; empty while a live node holds it. A shared lock where this user cannot write
     * the lock file: it still fails while a node holds the slot.
     */
    public static synchronized Optional<AutoCloseable> claimIdle(int index) {
        if (TAKEN.containsKey(index)) {
            return Optional.empty();
        }
        Path file = LOCK_DIR.resolve(index + ".lock");
        if (!Files.exists(file)) {
            return Optional.of(() -> {}); // never locked on this host since boot (/tmp clean)
        }
        try {
            boolean writable = Files.isWritable(file);
            FileChannel ch =
                    FileChannel.open(
                            file, writable ? StandardOpenOption.WRITE : StandardOpenOption.READ);
            FileLock lock;
            try {
                lock = ch.tryLock(0, Long.MAX_VALUE, !writable);
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                ch.close();
                return Optional.empty();
            }
            return Optional.of(ch::close);
        } catch (IOException e) {
            return Optional.empty();
        }
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
