package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The kubelet's pod work for one simulated node: it runs each operand pod bound to the node as a
 * real process, reports phase and readiness from the agent's own readiness endpoint, and restarts
 * processes that die (with back-off and a restart count), as the kubelet does for {@code
 * restartPolicy: Always}.
 *
 * <p>Not thread-safe: the cluster calls {@link #sync} from its single loop thread.
 */
public final class SimulatedKubelet implements PodRunner {

    private static final Duration GRACE = Duration.ofSeconds(10);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    private final KubernetesClient client;
    private final String nodeName;
    private final Path nodeRoot;
    private final Path logDir;
    private final PodSpecMapping mapping;
    private final Map<String, String> extraEnv;
    private final Consumer<String> events;
    private final Map<String, Running> byUid = new HashMap<>();

    public SimulatedKubelet(
            KubernetesClient client,
            String nodeName,
            Path nodeRoot,
            Path logDir,
            PodSpecMapping mapping,
            Map<String, String> extraEnv,
            Consumer<String> events) {
        this.client = client;
        this.nodeName = nodeName;
        this.nodeRoot = nodeRoot;
        this.logDir = logDir;
        this.mapping = mapping;
        this.extraEnv = extraEnv;
        this.events = events;
    }

    private static final class Running {
        final Pod pod;
        final AgentProcess process;
        int restarts;
        Duration backoff = Duration.ofSeconds(1);
        Instant restartAt;
        String reported; // last status written, to write only on change
        String error;

        Running(Pod pod, AgentProcess process) {
            this.pod = pod;
            this.process = process;
        }
    }

    /** One pass: start new pods, stop deleted ones, restart dead ones, report status changes. */
    @Override
    public void sync(List<Pod> podsOnNode) {
        Set<String> present = new HashSet<>();
        for (Pod pod : podsOnNode) {
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String uid = pod.getMetadata().getUid();
            present.add(uid);
            Running r = byUid.get(uid);
            if (r == null) {
                r = start(pod);
                byUid.put(uid, r);
            }
            superviseAndReport(r);
        }
        for (String uid : new ArrayList<>(byUid.keySet())) {
            if (!present.contains(uid)) {
                Running r = byUid.remove(uid);
                events.accept(nodeName + ": stopping " + r.pod.getMetadata().getName());
                r.process.stop(GRACE);
            }
        }
    }

    private Running start(Pod pod) {
        String name = pod.getMetadata().getName();
        LaunchSpec spec;
        try {
            spec = mapping.map(pod, nodeName, nodeRoot, SimulatedKubelet::freePort, extraEnv);
        } catch (RuntimeException e) {
            Running r =
                    new Running(
                            pod,
                            new AgentProcess(
                                    new LaunchSpec("unknown", List.of(), Map.of(), Map.of(), null),
                                    logDir.resolve(name + ".log")));
            r.error = "CreateContainerConfigError: " + e.getMessage();
            events.accept(nodeName + ": cannot run " + name + ": " + e.getMessage());
            return r;
        }
        AgentProcess p = new AgentProcess(spec, logDir.resolve(name + ".log"));
        Running r = new Running(pod, p);
        try {
            p.start();
            events.accept(
                    nodeName
                            + ": started "
                            + name
                            + " ("
                            + spec.module()
                            + ", pid "
                            + p.pid()
                            + ")");
        } catch (IOException e) {
            r.error = "StartError: " + e.getMessage();
        }
        return r;
    }

    private void superviseAndReport(Running r) {
        boolean alive = r.error == null && r.process.alive();
        if (r.error == null && !alive) {
            Instant now = Instant.now();
            if (r.restartAt == null) {
                r.restartAt = now.plus(r.backoff);
                events.accept(
                        nodeName
                                + ": "
                                + r.pod.getMetadata().getName()
                                + " exited; restarting in "
                                + r.backoff.toMillis()
                                + " ms (log "
                                + r.process.logFile()
                                + ")");
            } else if (!now.isBefore(r.restartAt)) {
                try {
                    r.process.start();
                    r.restarts++;
                    r.restartAt = null;
                    r.backoff =
                            r.backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                                    ? MAX_BACKOFF
                                    : r.backoff.multipliedBy(2);
                    alive = true;
                } catch (IOException e) {
                    r.error = "StartError: " + e.getMessage();
                }
            }
        }
        boolean ready = alive && r.process.ready();
        String key =
                (r.error != null ? "error:" + r.error : alive ? "running" : "waiting")
                        + "/"
                        + ready
                        + "/"
                        + r.restarts;
        if (!key.equals(r.reported)) {
            if (report(r, alive, ready)) {
                r.reported = key;
            }
        }
    }

    private boolean report(Running r, boolean alive, boolean ready) {
        String now = Instant.now().toString();
        PodCondition readyCond =
                new PodConditionBuilder()
                        .withType("Ready")
                        .withStatus(ready ? "True" : "False")
                        .withLastTransitionTime(now)
                        .build();
        ContainerStatus cs =
                new ContainerStatusBuilder()
                        .withName(r.pod.getSpec().getContainers().get(0).getName())
                        .withImage(r.pod.getSpec().getContainers().get(0).getImage())
                        .withReady(ready)
                        .withStarted(alive)
                        .withRestartCount(r.restarts)
                        .withNewState()
                        .withNewRunning()
                        .withStartedAt(now)
                        .endRunning()
                        .endState()
                        .build();
        if (!alive) {
            cs.getState().setRunning(null);
            cs.getState()
                    .setWaiting(
                            new io.fabric8.kubernetes.api.model.ContainerStateWaiting(
                                    r.error == null ? "process exited; restarting" : r.error,
                                    r.error == null
                                            ? "CrashLoopBackOff"
                                            : r.error.substring(0, r.error.indexOf(':'))));
        }
        PodStatus status =
                new PodStatusBuilder()
                        .withPhase(r.error != null ? "Pending" : "Running")
                        .withConditions(
                                readyCond,
                                new PodConditionBuilder()
                                        .withType("ContainersReady")
                                        .withStatus(ready ? "True" : "False")
                                        .withLastTransitionTime(now)
                                        .build(),
                                new PodConditionBuilder()
                                        .withType("PodScheduled")
                                        .withStatus("True")
                                        .withLastTransitionTime(now)
                                        .build())
                        .withContainerStatuses(cs)
                        .withHostIP("127.0.0.1")
                        .withPodIP("127.0.0.1")
                        .build();
        try {
            client.pods()
                    .inNamespace(r.pod.getMetadata().getNamespace())
                    .withName(r.pod.getMetadata().getName())
                    .editStatus(
                            p -> {
                                p.setStatus(status);
                                return p;
                            });
            return true;
        } catch (KubernetesClientException e) {
            return false; // the pod went away in between; the next pass sees it
        }
    }

    @Override
    public Set<String> runningPods() {
        Set<String> out = new HashSet<>();
        byUid.values()
                .forEach(
                        r -> {
                            if (r.process.alive()) {
                                out.add(r.pod.getMetadata().getName());
                            }
                        });
        return out;
    }

    /** Container ports are mapped to local ports (see {@link PodSpecMapping}). */
    @Override
    public Optional<String> endpoint(String podName, int containerPort) {
        AgentProcess p = processes().get(podName);
        if (p == null || !p.alive() || !p.spec().ports().containsKey(containerPort)) {
            return Optional.empty();
        }
        return Optional.of("127.0.0.1:" + p.spec().ports().get(containerPort));
    }

    @Override
    public void crash(String podName) {
        AgentProcess p = processes().get(podName);
        if (p == null) {
            throw new IllegalArgumentException("no process for pod " + podName + " on " + nodeName);
        }
        p.kill();
    }

    /** The processes of this node's pods, by pod name (for scenarios that break things). */
    public Map<String, AgentProcess> processes() {
        Map<String, AgentProcess> out = new HashMap<>();
        byUid.values().forEach(r -> out.put(r.pod.getMetadata().getName(), r.process));
        return out;
    }

    public String nodeName() {
        return nodeName;
    }

    @Override
    public void close() {
        byUid.values().forEach(r -> r.process.terminate());
        byUid.values().forEach(r -> r.process.awaitExit(GRACE));
        byUid.clear();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free local port", e);
        }
    }
}
