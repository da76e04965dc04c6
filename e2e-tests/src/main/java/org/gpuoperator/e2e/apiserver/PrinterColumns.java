package org.gpuoperator.e2e.apiserver;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
            case "Deployment" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Ready", "string", 0),
                                    Column.of("Up-to-date", "integer", 0),
                                    Column.of("Available", "integer", 0),
                                    AGE,
                                    Column.of("Containers", "string", 1),
                                    Column.of("Images", "string", 1),
                                    Column.of("Selector", "string", 1)),
                            (o, now) -> {
                                Map<String, Object> st = Json.map(o, "status");
                                Map<String, Object> spec = Json.map(o, "spec");
                                List<Object> row = new ArrayList<>();
                                row.add(Json.name(o));
                                row.add(count(st, "readyReplicas") + "/" + count(spec, "replicas"));
                                row.add(count(st, "updatedReplicas"));
                                row.add(count(st, "availableReplicas"));
                                row.add(age(o, now));
                                row.addAll(containersImagesSelector(spec));
                                return row;
                            });
            case "ReplicaSet" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Desired", "integer", 0),
                                    Column.of("Current", "integer", 0),
                                    Column.of("Ready", "integer", 0),
                                    AGE,
                                    Column.of("Containers", "string", 1),
                                    Column.of("Images", "string", 1),
                                    Column.of("Selector", "string", 1)),
                            (o, now) -> {
                                Map<String, Object> st = Json.map(o, "status");
                                Map<String, Object> spec = Json.map(o, "spec");
                                List<Object> row = new ArrayList<>();
                                row.add(Json.name(o));
                                row.add(count(spec, "replicas"));
                                row.add(count(st, "replicas"));
                                row.add(count(st, "readyReplicas"));
                                row.add(age(o, now));
                                row.addAll(containersImagesSelector(spec));
                                return row;
                            });
            case "ConfigMap" ->
                    new PrinterColumns(
                            List.of(NAME, Column.of("Data", "integer", 0), AGE),
                            (o, now) ->
                                    List.of(
                                            Json.name(o),
                                            (long)
                                                    (Json.map(o, "data").size()
                                                            + Json.map(o, "binaryData").size()),
                                            age(o, now)));
            case "Secret" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Type", "string", 0),
                                    Column.of("Data", "integer", 0),
                                    AGE),
                            (o, now) ->
                                    List.of(
                                            Json.name(o),
                                            orEmpty(o.get("type")),
                                            (long) Json.map(o, "data").size(),
                                            age(o, now)));
            case "Namespace" ->
                    new PrinterColumns(
                            List.of(NAME, Column.of("Status", "string", 0), AGE),
                            (o, now) ->
                                    List.of(
                                            Json.name(o),
                                            orEmpty(Json.map(o, "status").get("phase")),
                                            age(o, now)));
            case "ServiceAccount" ->
                    new PrinterColumns(
                            List.of(NAME, Column.of("Secrets", "string", 0), AGE),
                            (o, now) ->
                                    List.of(
                                            Json.name(o),
                                            (long) Json.maps(o, "secrets").size(),
                                            age(o, now)));
            case "Service" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Type", "string", 0),
                                    Column.of("Cluster-IP", "string", 0),
                                    Column.of("External-IP", "string", 0),
                                    Column.of("Port(s)", "string", 0),
                                    AGE,
                                    Column.of("Selector", "string", 1)),
                            PrinterColumns::serviceCells);
            case "Job" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Status", "string", 0),
                                    Column.of("Completions", "string", 0),
                                    Column.of("Duration", "string", 0),
                                    AGE,
                                    Column.of("Containers", "string", 1),
                                    Column.of("Images", "string", 1),
                                    Column.of("Selector", "string", 1)),
                            PrinterColumns::jobCells);
            case "CronJob" ->
                    new PrinterColumns(
                            List.of(
                                    NAME,
                                    Column.of("Schedule", "string", 0),
                                    Column.of("Timezone", "string", 0),
                                    Column.of("Suspend", "boolean", 0),
                                    Column.of("Active", "integer", 0),
                                    Column.of("Last Schedule", "string", 0),
                                    AGE,
                                    Column.of("Containers", "string", 1),
                                    Column.of("Images", "string", 1),
                                    Column.of("Selector", "string", 1)),
                            PrinterColumns::cronJobCells);
            case "Event" ->
                    new PrinterColumns(
                            List.of(
                                    Column.of("Last Seen", "string", 0),
                                    Column.of("Type", "string", 0),
                                    Column.of("Reason", "string", 0),
                                    Column.of("Object", "string", 0),
                                    Column.of("Subobject", "string", 1),
                                    Column.of("Source", "string", 1),
                                    Column.of("Message", "string", 0),
                                    Column.of("First Seen", "string", 1),
                                    Column.of("Count", "string", 1),
                                    new Column("Name", "string", "", 1, null)),
                            PrinterColumns::eventCells);
            default -> nameAndAge();
        };
    }

    private static long count(Map<String, Object> m, String field) {
        return m.get(field) instanceof Number n ? n.longValue() : 0;
    }

    private static String age(Map<String, Object> o, Instant now) {
        return Age.since(Json.map(o, "metadata").get("creationTimestamp"), now);
    }

    /** The wide columns of workloads: container names, images, and the label selector. */
    private static List<Object> containersImagesSelector(Map<String, Object> spec) {
        List<Map<String, Object>> containers =
                Json.maps(Json.map(Json.map(spec, "template"), "spec"), "containers");
        return List.of(
                String.join(",", containers.stream().map(c -> orEmpty(c.get("name"))).toList()),
                String.join(",", containers.stream().map(c -> orEmpty(c.get("image"))).toList()),
                selector(Json.map(spec, "selector")));
    }

    /**
     * A label selector as kubectl prints it: {@code app=web,tier in (a,b)}; none: {@code <none>}.
     */
    static String selector(Map<String, Object> selector) {
        java.util.TreeMap<String, String> parts = new java.util.TreeMap<>();
        Json.map(selector, "matchLabels").forEach((k, v) -> parts.put(k, k + "=" + v));
        for (Map<String, Object> e : Json.maps(selector, "matchExpressions")) {
            String key = orEmpty(e.get("key"));
            List<String> values = new ArrayList<>(Json.strings(e, "values"));
            java.util.Collections.sort(values);
            String op = orEmpty(e.get("operator"));
            parts.put(
                    key + " " + op,
                    switch (op) {
                        case "Exists" -> key;
                        case "DoesNotExist" -> "!" + key;
                        default ->
                                key
                                        + " "
                                        + op.toLowerCase(Locale.ROOT)
                                        + " ("
                                        + String.join(",", values)
                                        + ")";
                    });
        }
        return parts.isEmpty() ? "<none>" : String.join(",", parts.values());
    }

    private static List<Object> serviceCells(Map<String, Object> svc, Instant now) {
        Map<String, Object> spec = Json.map(svc, "spec");
        String type = spec.get("type") == null ? "ClusterIP" : spec.get("type").toString();
        List<String> external = new ArrayList<>(Json.strings(spec, "externalIPs"));
        if (type.equals("LoadBalancer")) {
            for (Map<String, Object> in :
                    Json.maps(Json.map(Json.map(svc, "status"), "loadBalancer"), "ingress")) {
                external.add(orEmpty(in.get("ip") != null ? in.get("ip") : in.get("hostname")));
            }
        }
        String externalIp =
                type.equals("ExternalName")
                        ? orEmpty(spec.get("externalName"))
                        : !external.isEmpty()
                                ? String.join(",", external)
                                : type.equals("LoadBalancer") ? "<pending>" : "<none>";
        List<String> ports = new ArrayList<>();
        for (Map<String, Object> p : Json.maps(spec, "ports")) {
            String proto = p.get("protocol") == null ? "TCP" : p.get("protocol").toString();
            ports.add(
                    orEmpty(p.get("port"))
                            + (p.get("nodePort") == null ? "" : ":" + p.get("nodePort"))
                            + "/"
                            + proto);
        }
        Map<String, Object> sel = Json.map(spec, "selector");
        List<Object> row = new ArrayList<>();
        row.add(Json.name(svc));
        row.add(type);
        row.add(spec.get("clusterIP") == null ? "<none>" : spec.get("clusterIP"));
        row.add(externalIp);
        row.add(ports.isEmpty() ? "<none>" : String.join(",", ports));
        row.add(age(svc, now));
        row.add(sel.isEmpty() ? "<none>" : selector(Map.of("matchLabels", sel)));
        return row;
    }

    private static List<Object> jobCells(Map<String, Object> job, Instant now) {
        Map<String, Object> spec = Json.map(job, "spec");
        Map<String, Object> st = Json.map(job, "status");
        java.util.Set<String> conditions = new java.util.HashSet<>();
        for (Map<String, Object> c : Json.maps(st, "conditions")) {
            if ("True".equals(c.get("status"))) {
                conditions.add(orEmpty(c.get("type")));
            }
        }
        String status;
        if (conditions.contains("Complete")) {
            status = "Complete";
        } else if (conditions.contains("Failed")) {
            status = "Failed";
        } else if (Json.map(job, "metadata").get("deletionTimestamp") != null) {
            status = "Terminating";
        } else if (conditions.contains("Suspended")) {
            status = "Suspended";
        } else if (conditions.contains("FailureTarget")) {
            status = "FailureTarget";
        } else if (conditions.contains("SuccessCriteriaMet")) {
            status = "SuccessCriteriaMet";
        } else {
            status = "Running";
        }
        long succeeded = count(st, "succeeded");
        String completions =
                spec.get("completions") instanceof Number n
                        ? succeeded + "/" + n.longValue()
                        : count(spec, "parallelism") > 1
                                ? succeeded + "/1 of " + count(spec, "parallelism")
                                : succeeded + "/1";
        String duration = "";
        try {
            if (st.get("startTime") != null) {
                Instant start = Instant.parse(st.get("startTime").toString());
                Instant end =
                        st.get("completionTime") != null
                                ? Instant.parse(st.get("completionTime").toString())
                                : now;
                duration = Age.format(java.time.Duration.between(start, end));
            }
        } catch (java.time.format.DateTimeParseException e) {
            duration = "<invalid>";
        }
        List<Object> row = new ArrayList<>();
        row.add(Json.name(job));
        row.add(status);
        row.add(completions);
        row.add(duration);
        row.add(age(job, now));
        row.addAll(containersImagesSelector(spec));
        return row;
    }

    private static List<Object> cronJobCells(Map<String, Object> cj, Instant now) {
        Map<String, Object> spec = Json.map(cj, "spec");
        Map<String, Object> st = Json.map(cj, "status");
        Object suspend = spec.get("suspend");
        List<Object> row = new ArrayList<>();
        row.add(Json.name(cj));
        row.add(orEmpty(spec.get("schedule")));
        row.add(spec.get("timeZone") == null ? "<none>" : spec.get("timeZone"));
        row.add(suspend == null ? "<unset>" : Boolean.TRUE.equals(suspend) ? "True" : "False");
        row.add((long) Json.maps(st, "active").size());
        row.add(
                st.get("lastScheduleTime") == null
                        ? "<none>"
                        : Age.since(st.get("lastScheduleTime"), now));
        row.add(age(cj, now));
        row.addAll(containersImagesSelector(Json.map(Json.map(spec, "jobTemplate"), "spec")));
        return row;
    }

    /** kube-apiserver's event row (its printer's wide cells; kubectl hides priority 1). */
    private static List<Object> eventCells(Map<String, Object> event, Instant now) {
        Map<String, Object> involved = Json.map(event, "involvedObject");
        Map<String, Object> source = Json.map(event, "source");
        Map<String, Object> series = Json.map(event, "series");
        Object first = event.get("firstTimestamp");
        String firstSeen =
                first != null ? Age.since(first, now) : Age.since(event.get("eventTime"), now);
        Object last = event.get("lastTimestamp");
        String lastSeen = last != null ? Age.since(last, now) : firstSeen;
        long count = event.get("count") instanceof Number n ? n.longValue() : 0;
        if (!series.isEmpty()) {
            lastSeen = Age.since(series.get("lastObservedTime"), now);
            count = series.get("count") instanceof Number n ? n.longValue() : 0;
        } else if (count == 0) {
            count = 1; // singleton events of the events.k8s.io API carry no count
        }
        String kind = String.valueOf(involved.getOrDefault("kind", "")).toLowerCase(Locale.ROOT);
        Object name = involved.get("name");
        String component = firstNonEmpty(source.get("component"), event.get("reportingComponent"));
        String instance = firstNonEmpty(source.get("host"), event.get("reportingInstance"));
        List<Object> row = new ArrayList<>();
        row.add(lastSeen);
        row.add(orEmpty(event.get("type")));
        row.add(orEmpty(event.get("reason")));
        row.add(name == null || name.toString().isEmpty() ? kind : kind + "/" + name);
        row.add(orEmpty(involved.get("fieldPath")));
        row.add(instance.isEmpty() ? component : component + ", " + instance);
        row.add(orEmpty(event.get("message")).strip());
        row.add(firstSeen);
        row.add(count);
        row.add(Json.name(event));
        return row;
    }

    private static String orEmpty(Object v) {
        return v == null ? "" : v.toString();
    }

    private static String firstNonEmpty(Object a, Object b) {
        return !orEmpty(a).isEmpty() ? orEmpty(a) : orEmpty(b);
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
