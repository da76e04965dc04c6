package org.gpuoperator.controller.nvidiadriver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which NVIDIADriver each GPU node gets (pure). A driver with a nodeSelector takes the nodes whose
 * labels contain it; a default driver takes the GPU nodes no other driver selects. A node claimed
 * by two or more drivers (overlapping selectors, or two defaults) is contested: no driver is
 * deployed there, and each claimant gets a {@code ConflictingNodeSelector} condition. A node's
 * answer depends on its own labels and the drivers only, so a node event re-plans that node alone.
 */
public final class DriverAssignment {

    /** Contested nodes named in a conflict message; the rest are counted. */
    static final int NAMED_NODES = 5;

    private DriverAssignment() {}

    /**
     * The drivers that claim the node, by name: the selecting ones, else the default ones.
     *
     * @param drivers every NVIDIADriver
     */
    public static List<String> claimants(Map<String, String> labels, List<DriverSelector> drivers) {
        List<String> selecting = new ArrayList<>();
        for (DriverSelector d : drivers) {
            if (d.selects(labels)) {
                selecting.add(d.name());
            }
        }
        if (selecting.isEmpty()) {
            for (DriverSelector d : drivers) {
                if (d.isDefault()) {
                    selecting.add(d.name());
                }
            }
        }
        Collections.sort(selecting);
        return selecting;
    }

    /** The node's driver: its one claimant; none when unclaimed or contested. */
    public static Optional<String> driverOf(
            Map<String, String> labels, List<DriverSelector> drivers) {
        List<String> claimants = claimants(labels, drivers);
        return claimants.size() == 1 ? Optional.of(claimants.get(0)) : Optional.empty();
    }

    /**
     * The drivers a node is contested between, the other driver(s), and the contested nodes.
     *
     * @param others the other drivers claiming some of the same nodes, sorted
     * @param nodes the contested nodes this driver claims, sorted
     */
    public record Conflict(List<String> others, List<String> nodes) {

        /**
         * E.g. "nodeSelector overlaps NVIDIADriver(s) [b]: 3 node(s) selected by more than one (n1,
         * n2, n3); no driver is deployed on them".
         */
        public String message() {
            if (nodes.isEmpty()) {
                return "more than one default NVIDIADriver: also "
                        + others
                        + "; at most one may be default";
            }
            String named =
                    nodes.stream().limit(NAMED_NODES).collect(Collectors.joining(", "))
                            + (nodes.size() > NAMED_NODES ? ", ..." : "");
            return "nodeSelector overlaps NVIDIADriver(s) "
                    + others
                    + ": "
                    + nodes.size()
                    + " node(s) selected by more than one ("
                    + named
                    + "); no driver is deployed on them";
        }
    }

    /**
     * Every node's driver and every driver's conflict.
     *
     * @param driverOfNode GPU node → its NVIDIADriver (contested and unclaimed nodes absent)
     * @param conflicts NVIDIADriver → its conflict (drivers without one absent)
     */
    public record Result(Map<String, String> driverOfNode, Map<String, Conflict> conflicts) {
        public List<String> nodesOf(String driver) {
            return driverOfNode.entrySet().stream()
                    .filter(e -> e.getValue().equals(driver))
                    .map(Map.Entry::getKey)
                    .sorted()
                    .toList();
        }
    }

    /**
     * @param gpuNodes GPU node name → its labels
     */
    public static Result assign(
            List<DriverSelector> drivers, Map<String, Map<String, String>> gpuNodes) {
        Map<String, String> driverOfNode = new TreeMap<>();
        Map<String, TreeSet<String>> others = new TreeMap<>();
        Map<String, TreeSet<String>> contested = new TreeMap<>();
        gpuNodes.forEach(
                (node, labels) -> {
                    List<String> claimants = claimants(labels, drivers);
                    if (claimants.size() == 1) {
                        driverOfNode.put(node, claimants.get(0));
                    } else if (claimants.size() > 1) {
                        for (String d : claimants) {
                            contested.computeIfAbsent(d, k -> new TreeSet<>()).add(node);
                            TreeSet<String> o = others.computeIfAbsent(d, k -> new TreeSet<>());
                            claimants.stream().filter(c -> !c.equals(d)).forEach(o::add);
                        }
                    }
                });
        // two defaults conflict even while other drivers select every node
        List<String> defaults =
                drivers.stream()
                        .filter(DriverSelector::isDefault)
                        .map(DriverSelector::name)
                        .toList();
        if (defaults.size() > 1) {
            for (String d : defaults) {
                contested.computeIfAbsent(d, k -> new TreeSet<>());
                TreeSet<String> o = others.computeIfAbsent(d, k -> new TreeSet<>());
                defaults.stream().filter(c -> !c.equals(d)).forEach(o::add);
            }
        }
        Map<String, Conflict> conflicts = new TreeMap<>();
        contested.forEach(
                (d, nodes) ->
                        conflicts.put(
                                d, new Conflict(List.copyOf(others.get(d)), List.copyOf(nodes))));
        return new Result(
                Collections.unmodifiableMap(driverOfNode), Collections.unmodifiableMap(conflicts));
    }
}
