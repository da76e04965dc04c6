package org.gpuoperator.controller.nvidiadriver;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node pools of the NVIDIADrivers (pure): the nodes of one driver with one OS form a pool,
 * which gets one driver DaemonSet. The controller labels each assigned node with its pool ({@value
 * #POOL_LABEL}); the pool's DaemonSet selects the driver deploy label and that label.
 */
public final class DriverPools {

    /** Node label: the node's pool, {@code <nvidiadriver>-<os>}; absent when none. */
    public static final String POOL_LABEL = "nvidia.com/gpu.driver-pool";

    /**
     * Node label, upstream's: the NVIDIADriver the node is assigned to; reserved (an NVIDIADriver
     * nodeSelector may not name it). The pools' DaemonSets select it too.
     */
    public static final String OWNER_LABEL = "nvidia.com/gpu-operator.driver.owner";

    /** DaemonSet annotation: the NVIDIADriver the pool's DaemonSet is rendered from. */
    public static final String DRIVER_ANNOTATION = "nvidia.com/nvidiadriver";

    /** Prefix of the pools' DaemonSet names, as upstream's. */
    public static final String DAEMONSET_PREFIX = "nvidia-gpu-driver-";

    static final int MAX_LABEL_VALUE = 63;
    static final int NAME_HASH = 10;

    private DriverPools() {}

    /**
     * One pool.
     *
     * @param id the pool label's value
     * @param daemonSetName {@code nvidia-gpu-driver-<os>-<hash of id>}, at most 63 characters
     * @param nodes its nodes, sorted
     */
    public record Pool(
            String driver, NodeOs os, String id, String daemonSetName, List<String> nodes) {}

    /**
     * {@code <driver>-<os>}: one pool per OS tag, as upstream's {@code getNodePools} for drivers
     * that are built on the node (a kernel of its own only for precompiled drivers, which this
     * operator does not deploy yet); when longer than a label value may be, the driver name is
     * shortened and a hash of the whole id appended.
     */
    public static String poolId(String driver, NodeOs os) {
        String id = driver + "-" + os.os();
        if (id.length() <= MAX_LABEL_VALUE) {
            return id;
        }
        String hash = hex(id, NAME_HASH);
        String rest = "-" + os.os() + "-" + hash;
        if (rest.length() > MAX_LABEL_VALUE - 1) {
            rest = "-" + hash;
        }
        String prefix =
                driver.substring(0, Math.min(driver.length(), MAX_LABEL_VALUE - rest.length()));
        // a label value ends with a letter or digit
        prefix = prefix.replaceAll("[^a-z0-9A-Z]+$", "");
        return (prefix.isEmpty() ? "pool" : prefix) + rest;
    }

    /**
     * {@code nvidia-gpu-driver-<os>-<first 10 hex of sha256(pool id)>}, the OS part shortened to
     * fit 63.
     */
    public static String daemonSetName(NodeOs os, String poolId) {
        String hash = hex(poolId, NAME_HASH);
        int room = MAX_LABEL_VALUE - DAEMONSET_PREFIX.length() - 1 - hash.length();
        String tag =
                os.os()
                        .substring(0, Math.min(os.os().length(), room))
                        .replaceAll("[^a-z0-9]+$", "");
        return DAEMONSET_PREFIX + (tag.isEmpty() ? "" : tag + "-") + hash;
    }

    /**
     * The pools of assigned nodes, sorted by id.
     *
     * @param driverOfNode node → NVIDIADriver ({@link DriverAssignment.Result#driverOfNode})
     * @param osOfNode node → its OS
     */
    public static List<Pool> pools(Map<String, String> driverOfNode, Map<String, NodeOs> osOfNode) {
        Map<String, List<String>> nodesById = new TreeMap<>();
        Map<String, String> driverById = new TreeMap<>();
        Map<String, NodeOs> osById = new TreeMap<>();
        new TreeMap<>(driverOfNode)
                .forEach(
                        (node, driver) -> {
                            NodeOs os =
                                    osOfNode.getOrDefault(
                                            node, new NodeOs(NodeOs.UNKNOWN, NodeOs.UNKNOWN));
                            String id = poolId(driver, os);
                            nodesById.computeIfAbsent(id, k -> new ArrayList<>()).add(node);
                            driverById.put(id, driver);
                            osById.put(id, os);
                        });
        List<Pool> pools = new ArrayList<>();
        nodesById.forEach(
                (id, nodes) ->
                        pools.add(
                                new Pool(
                                        driverById.get(id),
                                        osById.get(id),
                                        id,
                                        daemonSetName(osById.get(id), id),
                                        List.copyOf(nodes))));
        return List.copyOf(pools);
    }

    /** Whether the value can be a label value (an NVIDIADriver's name as the owner label). */
    public static boolean isLabelValue(String value) {
        return value != null
                && value.length() <= MAX_LABEL_VALUE
                && value.matches("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
    }

    static String hex(String value, int digits) {
        try {
            byte[] d =
                    MessageDigest.getInstance("SHA-256")
                            .digest(value.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, digits);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }
}
