package org.gpuoperator.e2e.apiserver;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * The columns of {@code kubectl get} for one type and how to compute each row's cells from a stored
 * object. Built-in kinds get the columns kubectl users know; CRDs get Name plus their
 * additionalPrinterColumns; anything else Name and Age. Priority 0 columns are always shown,
 * priority 1 only with {@code -o wide}.
 */
public final class PrinterColumns {

    /**
     * @param jsonPath null for built-in columns, which are computed
     */
    public record Column(
            String name, String type, String description, int priority, String jsonPath) {
        public Column {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("printer column without a name");
            }
            type = type == null ? "string" : type;
            description = description == null ? "" : description;
        }

        static Column of(String name, String type, int priority) {
            return new Column(name, type, "", priority, null);
        }

        Map<String, Object> definition() {
            return Map.of(
                    "name",
                    name,
                    "type",
                    type,
                    "format",
                    "Name".equals(name) ? "name" : "",
                    "description",
                    description,
                    "priority",
                    priority);
        }
    }

    private final List<Column> columns;
    private final BiFunction<Map<String, Object>, Instant, List<Object>> cells;

    private PrinterColumns(
            List<Column> columns, BiFunction<Map<String, Object>, Instant, List<Object>> cells) {
        this.columns = List.copyOf(columns);
        this.cells = cells;
    }

    public List<Column> columns() {
        return columns;
    }

    /** One cell per column, in column order. */
    public List<Object> cells(Map<String, Object> obj, Instant now) {
        return cells.apply(obj, now);
    }

    private static final Column NAME = Column.of("Name", "string", 0);
    private static final Column AGE = Column.of("Age", "string", 0);

    /**
     * Name, then each printer column evaluated by JSONPath; dates shown as ages, as the real server
     * does.
     */
    public static PrinterColumns forCrd(List<Column> printerColumns) {
        if (printerColumns.isEmpty()) {
            return nameAndAge();
        }
        List<Column> cols = new ArrayList<>();
        cols.add(NAME);
        List<JsonPath> paths = new ArrayList<>();
        for (Column c : printerColumns) {
            paths.add(JsonPath.compile(c.jsonPath()));
            cols.add(c);
        }
        return new PrinterColumns(
                cols,
                (obj, now) -> {
                    List<Object> row = new ArrayList<>();
                    row.add(Json.name(obj));
                    for (int i = 0; i < paths.size(); i++) {
                        Object v = paths.get(i).evaluate(obj);
                        row.add(
                                "date".equals(printerColumns.get(i).type()) && v != null
                                        ? Age.since(v, now)
                                        : cell(v));
                    }
                    return row;
                });
    }

    private static Object cell(Object v) {
        return v instanceof Map || v instanceof List ? Json.write(v) : v;
    }

    public static PrinterColumns nameAndAge() {
        return new PrinterColumns(
                List.of(NAME, AGE),
                (obj, now) -> {
                    List<Object> row = new ArrayList<>();
                    row.add(Json.name(obj));
                    row.add(Age.since(Json.map(obj, "metadata").get("creationTimestamp"), now));
                    return row;
                });
    }

    /** The columns for a built-in kind. */
    public static PrinterColumns forBuiltin(String kind) {
        return switch (kind) {
            case "Node" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Status", "string", 0),
                                    Column.of("Roles", "string", 0),
                                    AGE,
                                    Column.of("Version", "string", 0),
                                    Column.of("Internal-IP", "string", 1),
                                    Column.of("External-IP", "string", 1),
                                    Column.of("OS-Image", "string", 1),
                                    Column.of("Kernel-Version", "string", 1),
                                    Column.of("Container-Runtime", "string", 1)),
                            PrinterColumns::nodeCells);
            case "Pod" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Ready", "string", 0),
                                    Column.of("Status", "string", 0),
                                    Column.of("Restarts", "string", 0),
                                    AGE,
                                    Column.of("IP", "string", 1),
                                    Column.of("Node", "string", 1)),
                            PrinterColumns::podCells);
            case "DaemonSet" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Desired", "integer", 0),
                                    Column.of("Current", "integer", 0),
                                    Column.of("Ready", "integer", 0),
                                    Column.of("Up-to-date", "integer", 0),
                                    Column.of("Available", "integer", 0),
                                    Column.of("Node Selector", "string", 0),
                                    AGE,
                                    Column.of("Containers", "string", 1),
                                    Column.of("Images", "string", 1)),
                            PrinterColumns::daemonSetCells);
            default -> nameAndAge();
        };
    }

    private static List<Object> nodeCells(Map<String, Object> node, Instant now) {
        Map<String, Object> meta = Json.map(node, "metadata");
        Map<String, Object> status = Json.map(node, "status");
        Map<String, Object> info = Json.map(status, "nodeInfo");
        String ready = "Unknown";
        for (Map<String, Object> c : Json.maps(status, "conditions")) {
            if ("Ready".equals(c.get("type"))) {
                ready = "True".equals(c.get("status")) ? "Ready" : "NotReady";
            }
        }
        if (Boolean.TRUE.equals(Json.map(node, "spec").get("unschedulable"))) {
            ready += ",SchedulingDisabled";
        }
        TreeSet<String> roles = new TreeSet<>();
        Json.map(meta, "labels")
                .forEach(
                        (k, v) -> {
                            if (k.startsWith("node-role.kubernetes.io/")
                                    && k.length() > "node-role.kubernetes.io/".length()) {
                                roles.add(k.substring("node-role.kubernetes.io/".length()));
                            }
                        });
        List<Object> row = new ArrayList<>();
        row.add(meta.get("name"));
        row.add(ready);
        row.add(roles.isEmpty() ? "<none>" : String.join(",", roles));
        row.add(Age.since(meta.get("creationTimestamp"), now));
        row.add(orNone(info.get("kubeletVersion")));
        row.add(address(status, "InternalIP"));
        row.add(address(status, "ExternalIP"));
        row.add(orNone(info.get("osImage")));
        row.add(orNone(info.get("kernelVersion")));
        row.add(orNone(info.get("containerRuntimeVersion")));
        return row;
    }

    private static String address(Map<String, Object> status, String type) {
        return Json.maps(status, "addresses").stream()
                .filter(a -> type.equals(a.get("type")))
                .map(a -> String.valueOf(a.get("address")))
                .findFirst()
                .orElse("<none>");
    }

    private static Object orNone(Object v) {
        return v == null || v.toString().isEmpty() ? "<none>" : v;
    }

    private static List<Object> podCells(Map<String, Object> pod, Instant now) {
        Map<String, Object> meta = Json.map(pod, "metadata");
        Map<String, Object> status = Json.map(pod, "status");
        List<Map<String, Object>> containers = Json.maps(Json.map(pod, "spec"), "containers");
        List<Map<String, Object>> statuses = Json.maps(status, "containerStatuses");
        long ready = statuses.stream().filter(s -> Boolean.TRUE.equals(s.get("ready"))).count();
        long restarts =
                statuses.stream()
                        .mapToLong(
                                s -> s.get("restartCount") instanceof Number n ? n.longValue() : 0)
                        .sum();
        String phase =
                status.get("reason") != null
                        ? String.valueOf(status.get("reason"))
                        : String.valueOf(status.getOrDefault("phase", "Pending"));
        for (Map<String, Object> s : statuses) {
            Map<String, Object> state = Json.map(s, "state");
            Object waiting = Json.map(state, "waiting").get("reason");
            Object terminated = Json.map(state, "terminated").get("reason");
            if (waiting != null) {
                phase = waiting.toString();
            } else if (terminated != null) {
                phase = terminated.toString();
            }
        }
        if (meta.get("deletionTimestamp") != null) {
            phase = "Terminating";
        }
        List<Object> row = new ArrayList<>();
        row.add(meta.get("name"));
        row.add(ready + "/" + containers.size());
        row.add(phase);
        row.add(String.valueOf(restarts));
        row.add(Age.since(meta.get("creationTimestamp"), now));
        row.add(orNone(status.get("podIP")));
        row.add(orNone(Json.map(pod, "spec").get("nodeName")));
        return row;
    }

    private static List<Object> daemonSetCells(Map<String, Object> ds, Instant now) {
        Map<String, Object> meta = Json.map(ds, "metadata");
        Map<String, Object> status = Json.map(ds, "status");
        Map<String, Object> podSpec = Json.map(Json.map(Json.map(ds, "spec"), "template"), "spec");
        Map<String, Object> selector = Json.map(podSpec, "nodeSelector");
        List<Map<String, Object>> containers = Json.maps(podSpec, "containers");
        List<Object> row = new ArrayList<>();
        row.add(meta.get("name"));
        for (String f :
                List.of(
                        "desiredNumberScheduled",
                        "currentNumberScheduled",
                        "numberReady",
                        "updatedNumberScheduled",
                        "numberAvailable")) {
            row.add(status.get(f) instanceof Number n ? n.longValue() : 0L);
        }
        row.add(
                selector.isEmpty()
                        ? "<none>"
                        : String.join(
                                ",",
                                new java.util.TreeMap<>(selector)
                                        .entrySet().stream()
                                                .map(e -> e.getKey() + "=" + e.getValue())
                                                .toList()));
        row.add(Age.since(meta.get("creationTimestamp"), now));
        row.add(
                String.join(
                        ",", containers.stream().map(c -> String.valueOf(c.get("name"))).toList()));
        row.add(
                String.join(
                        ",",
                        containers.stream().map(c -> String.valueOf(c.get("image"))).toList()));
        return row;
    }
}
