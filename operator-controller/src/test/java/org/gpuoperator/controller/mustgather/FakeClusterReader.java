package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster in memory. {@link #failing} names the calls that throw (a method name, or {@code
 * podLog:<pod>/<container>[/previous]}, {@code podProxyGet:<pod>}), to prove one failure spares the
 * rest.
 */
final class FakeClusterReader implements ClusterReader {

    final List<GenericKubernetesResource> policies = new ArrayList<>();
    final List<GenericKubernetesResource> drivers = new ArrayList<>();
    final List<Node> nodes = new ArrayList<>();
    final List<DaemonSet> daemonSets = new ArrayList<>();
    final List<Pod> pods = new ArrayList<>();
    final List<Secret> secrets = new ArrayList<>();
    final List<Event> events = new ArrayList<>();

    /** namespace/pod/container[/previous] -> log */
    final Map<String, String> logs = new HashMap<>();

    /** pod:port/path -> body */
    final Map<String, String> proxied = new HashMap<>();

    final Map<String, String> failing = new HashMap<>();

    private void maybeFail(String call) {
        if (failing.containsKey(call)) {
            throw new IllegalStateException(failing.get(call));
        }
    }

    @Override
    public List<GenericKubernetesResource> clusterPolicies() {
        maybeFail("clusterPolicies");
        return policies;
    }

    @Override
    public List<GenericKubernetesResource> nvidiaDrivers() {
        maybeFail("nvidiaDrivers");
        return drivers;
    }

    @Override
    public List<Node> nodes() {
        maybeFail("nodes");
        return nodes;
    }

    @Override
    public List<DaemonSet> daemonSets(String namespace) {
        maybeFail("daemonSets");
        return daemonSets.stream()
                .filter(d -> namespace.equals(d.getMetadata().getNamespace()))
                .toList();
    }

    @Override
    public List<Pod> pods(String namespace) {
        maybeFail("pods");
        return pods.stream().filter(p -> namespace.equals(p.getMetadata().getNamespace())).toList();
    }

    @Override
    public List<Secret> secrets(String namespace) {
        maybeFail("secrets");
        return secrets.stream()
                .filter(s -> namespace.equals(s.getMetadata().getNamespace()))
                .toList();
    }

    @Override
    public List<Event> events(String namespace) {
        maybeFail("events");
        return events.stream()
                .filter(e -> namespace.equals(e.getMetadata().getNamespace()))
                .toList();
    }

    @Override
    public List<Event> eventsAbout(String kind) {
        maybeFail("eventsAbout:" + kind);
        return events.stream()
                .filter(
                        e ->
                                e.getInvolvedObject() != null
                                        && kind.equals(e.getInvolvedObject().getKind()))
                .toList();
    }

    @Override
    public Optional<String> podLog(
            String namespace, String pod, String container, boolean previous) {
        maybeFail("podLog:" + pod + "/" + container + (previous ? "/previous" : ""));
        return Optional.ofNullable(
                logs.get(namespace + "/" + pod + "/" + container + (previous ? "/previous" : "")));
    }

    @Override
    public String podProxyGet(String namespace, String pod, int port, String path) {
        maybeFail("podProxyGet:" + pod);
        String body = proxied.get(pod + ":" + port + path);
        if (body == null) {
            throw new IllegalStateException("503 error trying to reach service");
        }
        return body;
    }
}
