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
 * labels contain it; a default driver takes the GPU nodes no other driver selects. Conflicts fail
 * closed, as upstream's: a node claimed by two or more drivers (overlapping selectors, or two
 * defaults) is contested and keeps the driver it had (its previous owner, while that NVIDIADriver
 * exists), so its driver pod stays; a contested node without one gets none, as it has no driver to
 * lose. While several drivers say default, a node whose previous owner is one of them keeps it too:
 * nothing about the defaults changes. Each claimant gets a {@code ConflictingNodeSelector}
 * condition. A frozen driver ({@link DriverSelector#frozen}) keeps the nodes it has and claims
 * none. A node's answer depends on its own labels, its previous owner and the drivers only, so a
 * node event re-plans that node alone.
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
            selecting.addAll(defaults(drivers));
        }
        Collections.sort(selecting);
        return selecting;
    }

    /** The node's driver without a previous owner: its one claimant; none when contested. */
    public static Optional<String> driverOf(
            Map<String, String> labels, List<DriverSelector> drivers) {
        return driverOf(labels, drivers, null);
    }

    /**
     * The node's driver: its one claimant; when contested, or while several drivers are default and
     * the node's was one of them, its previous owner if that driver still exists; else none.
     *
     * @param previous the NVIDIADriver whose pool the node is in now, or null
     */
    public static Optional<String> driverOf(
            Map<String, String> labels, List<DriverSelector> drivers, String previous) {
        Optional<DriverSelector> had =
                drivers.stream().filter(d -> d.name().equals(previous)).findFirst();
        Optional<String> kept = had.map(DriverSelector::name);
        if (had.isPresent() && had.get().frozen()) {
            // its selector names the owner label: it keeps what it has, takes nothing new
            return kept;
        }
        List<String> defaults = defaults(drivers);
        if (defaults.size() > 1 && kept.isPresent() && defaults.contains(previous)) {
            return kept;
        }
        List<String> claimants = claimants(labels, drivers);
        if (claimants.size() == 1) {
            return Optional.of(claimants.get(0));
        }
        return claimants.size() > 1 ? kept : Optional.empty();
    }

    private static List<String> defaults(List<DriverSelector> drivers) {
        return drivers.stream()
                .filter(DriverSelector::takesDefault)
                .map(DriverSelector::name)
                .sorted()
                .toList();
    }

    /**
     * One driver's conflict.
     *
     * @param others the other drivers claiming some of the same nodes, sorted
     * @param nodes the contested nodes this driver claims, sorted
     * @param otherDefaults the other default drivers, when this one is default and not alone
     */
    public record Conflict(List<String> others, List<String> nodes, List<String> otherDefaults) {

        public Conflict(List<String> others, List<String> nodes) {
            this(others, nodes, List.of());
        }

        /**
         * E.g. "NVIDIADriver(s) [b] also claim 1 node(s) (n1): each keeps the driver it had (none
         * if it had none) until the conflict is resolved", after "multiple default NVIDIADrivers
         * found: also [d2]; ..." when this one is one of several defaults.
         */
        public String message() {
            List<String> parts = new ArrayList<>();
            if (!otherDefaults.isEmpty()) {
                parts.add(
                        "multiple default NVIDIADrivers found: also "
                                + otherDefaults
                                + "; at most one may be default, nodes keep the driver they had");
            }
            if (!nodes.isEmpty()) {
                String named =
                        nodes.stream().limit(NAMED_NODES).collect(Collectors.joining(", "))
                                + (nodes.size() > NAMED_NODES ? ", ..." : "");
                parts.add(
                        "NVIDIADriver(s) "
                                + others
                                + " also claim "
                                + nodes.size()
                                + " node(s) ("
                                + named
                                + "): each keeps the driver it had (none if it had none) until"
                                + " the conflict is resolved");
            }
            return String.join("; ", parts);
        }
    }

    /**
     * Every node's driver and every driver's conflict.
     *
     * @param driverOfNode GPU node → its NVIDIADriver (unclaimed nodes and contested nodes without
     *     a previous owner absent)
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

    /** As below, with no previous owners. */
    public static Result assign(
            List<DriverSelector> drivers, Map<String, Map<String, String>> gpuNodes) {
        return assign(drivers, gpuNodes, Map.of());
    }

    /**
     * @param gpuNodes GPU node name → its labels
     * @param previousOwner GPU node → the NVIDIADriver whose pool it is in now (nodes without one
     *     absent)
     */
    public static Result assign(
            List<DriverSelector> drivers,
            Map<String, Map<String, String>> gpuNodes,
            Map<String, String> previousOwner) {
        Map<String, String> driverOfNode = new TreeMap<>();
        Map<String, TreeSet<String>> others = new TreeMap<>();
        Map<String, TreeSet<String>> contested = new TreeMap<>();
        gpuNodes.forEach(
                (node, labels) -> {
                    driverOf(labels, drivers, previousOwner.get(node))
                            .ifPresent(d -> driverOfNode.put(node, d));
                    List<String> claimants = claimants(labels, drivers);
                    if (claimants.size() > 1) {
                        for (String d : claimants) {
                            contested.computeIfAbsent(d, k -> new TreeSet<>()).add(node);
                            TreeSet<String> o = others.computeIfAbsent(d, k -> new TreeSet<>());
                            claimants.stream().filter(c -> !c.equals(d)).forEach(o::add);
                        }
                    }
                });
        // two defaults conflict even while other drivers select every node
        List<String> defaults = defaults(drivers);
        if (defaults.size() > 1) {
            for (String d : defaults) {
                contested.computeIfAbsent(d, k -> new TreeSet<>());
                others.computeIfAbsent(d, k -> new TreeSet<>());
            }
        }
        Map<String, Conflict> conflicts = new TreeMap<>();
        contested.forEach(
                (d, nodes) ->
                        conflicts.put(
                                d,
                                new Conflict(
                                        List.copyOf(others.get(d)),
                                        List.copyOf(nodes),
                                        defaults.size() > 1 && defaults.contains(d)
                                                ? defaults.stream()
                                                        .filter(x -> !x.equals(d))
                                                        .toList()
                                                : List.of())));
        return new Result(
                Collections.unmodifiableMap(driverOfNode), Collections.unmodifiableMap(conflicts));
    }
}
