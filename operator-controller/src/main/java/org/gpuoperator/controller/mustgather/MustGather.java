package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Collects the support bundle through a {@link ClusterReader}: the ClusterPolicies with their
 * status, the NVIDIADrivers, the GPU nodes, the operator namespace's DaemonSets, pods, their logs
 * (previous runs too), events and Secrets (names and keys only), the cluster's events about GPU
 * nodes and the operator's kinds, and each controller pod's metrics through the pod proxy. A read
 * that fails is an index entry with its error; the rest is still collected.
 *
 * <p>Layout under {@code must-gather-<timestamp>/}: {@code index.yaml}, {@code
 * cluster/clusterpolicies/<name>.yaml}, {@code cluster/nvidiadrivers/<name>.yaml}, {@code
 * cluster/nodes/<name>.yaml}, {@code cluster/events.yaml}, {@code
 * namespaces/<ns>/daemonsets/<name>.yaml}, {@code namespaces/<ns>/pods/<name>.yaml}, {@code
 * namespaces/<ns>/pods/<name>/<container>[.previous].log}, {@code namespaces/<ns>/events.yaml},
 * {@code namespaces/<ns>/secrets.yaml}, {@code metrics/<controller pod>.prom} (or {@code
 * metrics/unavailable.txt} saying why none).
 */
public final class MustGather {

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private final ClusterReader reader;
    private final String namespace;
    private final Instant now;
    private final List<Bundle.File> files = new ArrayList<>();
    private final List<Bundle.Item> items = new ArrayList<>();
    private Redaction redaction = Redaction.none();
    private boolean secretsRead;

    private MustGather(ClusterReader reader, String namespace, Instant now) {
        this.reader = reader;
        this.namespace = namespace;
        this.now = now;
    }

    /** {@code must-gather-20261202T094353Z}: the archive's top directory and default name. */
    public static String rootName(Instant now) {
        return "must-gather-" + STAMP.format(now);
    }

    public static Bundle collect(ClusterReader reader, String namespace, Instant now) {
        return new MustGather(reader, namespace, now).run();
    }

    private Bundle run() {
        String ns = "namespaces/" + namespace + "/";
        // Secrets first: their values are scrubbed from everything written after
        List<Secret> secrets =
                read("secrets in namespace " + namespace, () -> reader.secrets(namespace));
        if (secrets != null) {
            secretsRead = true;
            redaction = Redaction.of(secrets);
            yaml(
                    "secrets in namespace " + namespace + " (names and keys; values redacted)",
                    ns + "secrets.yaml",
                    secrets.stream()
                            .sorted(Comparator.comparing(s -> s.getMetadata().getName()))
                            .map(Redaction::secretSummary)
                            .toList());
        }

        List<GenericKubernetesResource> policies = read("clusterpolicies", reader::clusterPolicies);
        if (policies != null) {
            objects("clusterpolicy", "cluster/clusterpolicies/", policies);
        }
        List<GenericKubernetesResource> drivers = read("nvidiadrivers", reader::nvidiaDrivers);
        if (drivers != null) {
            objects("nvidiadriver", "cluster/nvidiadrivers/", drivers);
        }

        Set<String> gpuNodes = Set.of();
        List<Node> nodes = read("nodes", reader::nodes);
        if (nodes != null) {
            List<Node> gpu =
                    nodes.stream()
                            .filter(Selection::isGpuNode)
                            .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
                            .toList();
            if (gpu.isEmpty()) {
                note("gpu nodes", "none of the " + nodes.size() + " nodes is a GPU node");
            }
            for (Node n : gpu) {
                yaml(
                        "node " + n.getMetadata().getName() + " (labels, conditions, allocatable)",
                        "cluster/nodes/" + n.getMetadata().getName() + ".yaml",
                        Selection.nodeReport(n));
            }
            gpuNodes = gpu.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
        }

        List<DaemonSet> daemonSets =
                read("daemonsets in namespace " + namespace, () -> reader.daemonSets(namespace));
        if (daemonSets != null) {
            objects("daemonset " + namespace + "/", ns + "daemonsets/", daemonSets);
        }

        List<Pod> pods = read("pods in namespace " + namespace, () -> reader.pods(namespace));
        if (pods != null) {
            List<Pod> sorted =
                    pods.stream()
                            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                            .toList();
            objects("pod " + namespace + "/", ns + "pods/", sorted);
            for (Pod p : sorted) {
                logs(p, ns + "pods/" + p.getMetadata().getName() + "/");
            }
        }

        List<Event> events =
                read("events in namespace " + namespace, () -> reader.events(namespace));
        if (events != null) {
            yaml(
                    "events in namespace " + namespace,
                    ns + "events.yaml",
                    Selection.sortedEvents(events).stream().map(Selection::toMap).toList());
        }
        List<Event> clusterEvents = new ArrayList<>();
        boolean clusterEventsRead = true;
        for (String kind : Selection.CLUSTER_EVENT_KINDS) {
            List<Event> about =
                    read("events about " + kind + " objects", () -> reader.eventsAbout(kind));
            if (about == null) {
                clusterEventsRead = false;
            } else {
                clusterEvents.addAll(about);
            }
        }
        yaml(
                "events about GPU nodes, ClusterPolicies and NVIDIADrivers in other namespaces"
                        + (clusterEventsRead ? "" : " (partial: see the errors)"),
                "cluster/events.yaml",
                Selection.clusterEvents(clusterEvents, gpuNodes, namespace).stream()
                        .map(Selection::toMap)
                        .toList());

        metrics(pods);

        files.add(new Bundle.File(Bundle.INDEX, redaction.scrub(index())));
        return new Bundle(rootName(now), files, items);
    }

    private void logs(Pod pod, String dir) {
        String name = pod.getMetadata().getName();
        for (Selection.LogTarget t : Selection.logTargets(pod)) {
            String item =
                    "pod "
                            + namespace
                            + "/"
                            + name
                            + " container "
                            + t.container()
                            + (t.previous() ? " previous log" : " log");
            String file = dir + t.container() + (t.previous() ? ".previous.log" : ".log");
            try {
                Optional<String> log = reader.podLog(namespace, name, t.container(), t.previous());
                if (log.isPresent()) {
                    add(item, file, log.get());
                } else {
                    note(item, "none (the API server has no log for it)");
                }
            } catch (RuntimeException e) {
                error(item, e);
            }
        }
    }

    private void metrics(List<Pod> pods) {
        String item = "controller metrics";
        if (pods == null) {
            unavailable(item, "the pods of namespace " + namespace + " could not be listed");
            return;
        }
        List<Pod> controllers = Selection.controllerPods(pods);
        if (controllers.isEmpty()) {
            unavailable(
                    item,
                    "no pod labelled "
                            + Selection.CONTROLLER_COMPONENT_LABEL
                            + "="
                            + Selection.CONTROLLER_COMPONENT
                            + " in namespace "
                            + namespace
                            + " (is the controller running outside the cluster?)");
            return;
        }
        List<String> failures = new ArrayList<>();
        for (Pod p : controllers) {
            String name = p.getMetadata().getName();
            int port = Selection.metricsPort(p);
            String what = item + " of pod " + namespace + "/" + name + " port " + port;
            try {
                add(
                        what,
                        "metrics/" + name + ".prom",
                        reader.podProxyGet(namespace, name, port, "/metrics"));
            } catch (RuntimeException e) {
                error(what, e);
                failures.add(what + ": " + message(e));
            }
        }
        if (failures.size() == controllers.size()) {
            files.add(
                    new Bundle.File(
                            "metrics/unavailable.txt",
                            redaction.scrub(
                                    "The controller's metrics could not be scraped through the"
                                            + " API server's pod proxy:\n"
                                            + String.join("\n", failures)
                                            + "\n")));
        }
    }

    private void unavailable(String item, String why) {
        items.add(new Bundle.Item(item, "metrics/unavailable.txt", "not scraped: " + why, null));
        files.add(
                new Bundle.File(
                        "metrics/unavailable.txt",
                        redaction.scrub(
                                "The controller's metrics were not scraped: " + why + "\n")));
    }

    private <T> List<T> read(String item, Supplier<List<T>> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            error(item, e);
            return null;
        }
    }

    private void objects(
            String itemPrefix,
            String dir,
            List<? extends io.fabric8.kubernetes.api.model.HasMetadata> objects) {
        if (objects.isEmpty()) {
            note(dir.substring(0, dir.length() - 1), "none");
        }
        for (var o : objects) {
            String name = o.getMetadata().getName();
            yaml(
                    itemPrefix + (itemPrefix.endsWith("/") ? "" : " ") + name,
                    dir + name + ".yaml",
                    Selection.toMap(o));
        }
    }

    private void yaml(String item, String file, Object content) {
        try {
            add(item, file, Serialization.asYaml(content));
        } catch (RuntimeException e) {
            error(item, e);
        }
    }

    private void add(String item, String file, String content) {
        files.add(new Bundle.File(file, redaction.scrub(content)));
        items.add(new Bundle.Item(item, file, null, null));
    }

    private void note(String item, String note) {
        items.add(new Bundle.Item(item, null, null, note));
    }

    private void error(String item, RuntimeException e) {
        items.add(new Bundle.Item(item, null, message(e), null));
    }

    private static String message(RuntimeException e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private String index() {
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("bundle", rootName(now));
        index.put("collectedAt", now.toString());
        index.put("namespace", namespace);
        index.put(
                "redaction",
                secretsRead
                        ? "Secrets are listed by name, type and keys only; each of their values"
                                + " (at least "
                                + Redaction.MIN_SCRUBBED_LENGTH
                                + " characters), decoded and base64, is replaced by <redacted:"
                                + " secret ...> in every file ("
                                + redaction.size()
                                + " strings searched)"
                        : "the Secrets could not be read (see the errors): none is written, but"
                                + " their values could not be searched for in the logs");
        index.put("errors", items.stream().filter(Bundle.Item::failed).count());
        List<Map<String, Object>> list = new ArrayList<>();
        for (Bundle.Item i : items) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("item", i.item());
            if (i.file() != null) {
                m.put("file", i.file());
            }
            if (i.error() != null) {
                m.put("error", i.error());
            }
            if (i.note() != null) {
                m.put("note", i.note());
            }
            list.add(m);
        }
        index.put("items", list);
        return Serialization.asYaml(index);
    }
}
