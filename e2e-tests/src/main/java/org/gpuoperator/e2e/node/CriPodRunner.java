package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.gpuoperator.e2e.images.ImageName;
import org.gpuoperator.e2e.images.SimulatedRegistry;
import org.gpuoperator.e2e.node.PodStatusComputer.ContainerView;
import org.gpuoperator.e2e.node.PodStatusComputer.State;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.ContainerFilter;
import org.gpuoperator.kubelet.cri.v1.ContainerState;
import org.gpuoperator.kubelet.cri.v1.ContainerStateValue;
import org.gpuoperator.kubelet.cri.v1.ContainerStatus;
import org.gpuoperator.kubelet.cri.v1.PodSandbox;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxFilter;
import org.gpuoperator.kubelet.cri.v1.PodSandboxState;

/**
 * The kubelet's pod work through CRI: each pod bound to the node becomes a pod sandbox (with a pod
 * IP from the node's CNI bridge) and real containers in the node's containerd, with exactly the pod
 * spec's command, env, volumes and security context ({@link PodToCri}). Init containers run to
 * completion in order, then the main containers; readiness and liveness probes run as rendered;
 * exited containers restart with the kubelet's back-off; the pod's status is written when it
 * changes ({@link PodStatusComputer}). A deleted pod's containers get their grace period, then
 * sandbox and volumes go.
 *
 * <p>{@link #sync} only hands work out: each pod has one worker (a virtual thread at a time) doing
 * its blocking CRI calls, each with a deadline, so one slow container never stalls the cluster loop
 * or the other pods.
 */
public final class CriPodRunner implements PodRunner {

    /**
     * @param access the API server as pods see it (env and service-account volume); null for none
     * @param hostIp the node's address (status.hostIP; pod IP of host-network pods; probe target
     *     for them)
     * @param backoff crash-loop and image-pull back-off ({@link RestartBackoff#KUBELET} on a real
     *     node)
     * @param registry what the node can pull where containerd lacks a pod's image ({@link
     *     SimulatedRegistry#standard()}); what it does not serve fails as on a real node ({@code
     *     ErrImagePull}, then {@code ImagePullBackOff} with {@code backoff}'s timing)
     * @param minInterval the least time between two passes over one unchanged pod
     */
    public record Settings(
            ClusterAccess access,
            String hostIp,
            RestartBackoff backoff,
            SimulatedRegistry registry,
            Duration minInterval) {}

    private final KubernetesClient client;
    private final String nodeName;
    private final Path nodeRoot;
    private final CriClient cri;
    private final Settings settings;
    private final DeviceAdmission admission;
    private final Consumer<String> events;
    private final Clock clock;
    private final Map<String, PodWorker> workers = new ConcurrentHashMap<>();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final PodEvents podEvents;

    /**
     * How often a running pod's ConfigMap and Secret volumes are compared with the API server (the
     * kubelet: ~1 min).
     */
    static final Duration VOLUME_REFRESH = Duration.ofSeconds(2);

    public CriPodRunner(
            KubernetesClient client,
            String nodeName,
            Path nodeRoot,
            CriClient cri,
            Settings settings,
            Consumer<String> events) {
        this(
                client,
                nodeName,
                nodeRoot,
                cri,
                settings,
                DeviceAdmission.NONE,
                events,
                Clock.systemUTC());
    }

    /**
     * @param admission the node's device manager: pods asking for devices are admitted through it
     *     first
     */
    public CriPodRunner(
            KubernetesClient client,
            String nodeName,
            Path nodeRoot,
            CriClient cri,
            Settings settings,
            DeviceAdmission admission,
            Consumer<String> events) {
        this(client, nodeName, nodeRoot, cri, settings, admission, events, Clock.systemUTC());
    }

    public CriPodRunner(
            KubernetesClient client,
            String nodeName,
            Path nodeRoot,
            CriClient cri,
            Settings settings,
            Consumer<String> events,
            Clock clock) {
        this(client, nodeName, nodeRoot, cri, settings, DeviceAdmission.NONE, events, clock);
    }

    public CriPodRunner(
            KubernetesClient client,
            String nodeName,
            Path nodeRoot,
            CriClient cri,
            Settings settings,
            DeviceAdmission admission,
            Consumer<String> events,
            Clock clock) {
        this.client = client;
        this.nodeName = nodeName;
        this.nodeRoot = nodeRoot;
        this.cri = cri;
        this.settings = settings;
        this.admission = admission;
        this.events = events;
        this.clock = clock;
        this.podEvents = new PodEvents(client, clock, events);
    }

    /**
     * The containers containerd ran at the last relist, and when it was asked: as the kubelet's
     * PLEG, one ListContainers a pass for the node instead of a ContainerStatus per running
     * container and pass (containerd's and this JVM's CPU on a 10-node cluster). A pod's pass asks
     * ContainerStatus for a container not listed as running, not yet known to run, or when the last
     * answer is older than {@link #RELIST_TRUSTED} (containerd restarting: the toolkit reloads it).
     */
    private record Relist(Set<String> running, Instant at) {}

    static final Duration RELIST_TRUSTED = Duration.ofSeconds(1);

    private static final ContainerFilter RUNNING =
            ContainerFilter.newBuilder()
                    .setState(
                            ContainerStateValue.newBuilder()
                                    .setState(ContainerState.CONTAINER_RUNNING))
                    .build();

    private volatile Relist relist = new Relist(Set.of(), Instant.EPOCH);

    private final AtomicBoolean relisting = new AtomicBoolean();
    private volatile Instant lastRelist = Instant.EPOCH;

    /** Starts a relist off the caller's thread when the last is older than the pass interval. */
    private void relistIfDue() {
        Instant now = clock.instant();
        if (Duration.between(lastRelist, now).compareTo(settings.minInterval()) < 0
                || !relisting.compareAndSet(false, true)) {
            return;
        }
        lastRelist = now;
        try {
            executor.execute(
                    () -> {
                        // stamped when asked: the answer shows containerd's state no older
                        // than that, so "under RELIST_TRUSTED old" holds however long it took
                        Instant asked = clock.instant();
                        try {
                            Set<String> ids = new HashSet<>();
                            for (var c : cri.listContainers(RUNNING, RELIST_TRUSTED)) {
                                ids.add(c.getId());
                            }
                            relist = new Relist(Set.copyOf(ids), asked);
                        } catch (StatusRuntimeException e) {
                            relist = new Relist(Set.of(), Instant.EPOCH);
                        } finally {
                            relisting.set(false);
                        }
                    });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            relisting.set(false);
        }
    }

    /** Whether the last relist, asked within {@link #RELIST_TRUSTED}, listed it as running. */
    private boolean listedRunning(String containerId) {
        Relist r = relist;
        return !clock.instant().isAfter(r.at().plus(RELIST_TRUSTED))
                && r.running().contains(containerId);
    }

    @Override
    public void sync(List<Pod> podsOnNode) {
        relistIfDue();
        Set<String> present = new HashSet<>();
        for (Pod pod : podsOnNode) {
            String uid = pod.getMetadata().getUid();
            if (pod.getMetadata().getDeletionTimestamp() != null) {
                // graceful deletion on an API server that honours it: stop with the pod's grace,
                // then finish the delete
                PodWorker w = workers.get(uid);
                if (w != null) {
                    w.pod = pod;
                }
                continue;
            }
            present.add(uid);
            workers.computeIfAbsent(uid, u -> new PodWorker(pod)).offer(pod);
        }
        for (PodWorker w : workers.values()) {
            if (!present.contains(w.uid)) {
                w.stopRequested = true;
                w.kick(true);
            }
        }
    }

    @Override
    public Set<String> runningPods() {
        Set<String> out = new HashSet<>();
        for (PodWorker w : workers.values()) {
            if (!w.stopRequested && w.runningMain().isPresent()) {
                out.add(w.pod.getMetadata().getName());
            }
        }
        return out;
    }

    @Override
    public Optional<String> endpoint(String podName, int containerPort) {
        return worker(podName)
                .filter(w -> w.runningMain().isPresent())
                .map(
                        w ->
                                (PodToCri.hostNetwork(w.pod) ? settings.hostIp() : w.podIp)
                                        + ":"
                                        + containerPort);
    }

    /**
     * SIGKILL to the main container's task, through containerd itself (the agent images have no
     * shell to kill with).
     */
    @Override
    public void crash(String podName) {
        String id =
                worker(podName)
                        .flatMap(PodWorker::runningMain)
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "no running container for pod "
                                                        + podName
                                                        + " on "
                                                        + nodeName));
        try {
            // containerd may be restarting (the toolkit reloads it): retry while it cannot be
            // dialled
            for (int attempt = 1; ; attempt++) {
                Process p =
                        new ProcessBuilder(
                                        "ctr",
                                        "--address",
                                        cri.socket().toString(),
                                        "-n",
                                        "k8s.io",
                                        "tasks",
                                        "kill",
                                        "--signal",
                                        "SIGKILL",
                                        id)
                                .redirectErrorStream(true)
                                .start();
                String out =
                        new String(
                                p.getInputStream().readAllBytes(),
                                java.nio.charset.StandardCharsets.UTF_8);
                boolean exited = p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
                if (exited
                        && p.exitValue() != 0
                        && out.contains("failed to dial")
                        && attempt < 20) {
                    Thread.sleep(500);
                    continue;
                }
                if (!exited || p.exitValue() != 0) {
                    throw new IllegalStateException(
                            "ctr tasks kill " + id + " failed: " + out.strip());
                }
                break;
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Through the CRI's ExecSync, as the kubelet's probes; the command may run 30 minutes. */
    @Override
    public org.gpuoperator.e2e.apiserver.PodExec.Target execTarget(
            String podUid, String container) {
        PodWorker w = workers.get(podUid);
        String id = null;
        if (w != null && !w.stopRequested) {
            for (Slot s : w.allSlots()) {
                if (s.spec.getName().equals(container) && s.state instanceof State.Running) {
                    id = s.containerId;
                }
            }
        }
        if (id == null) {
            throw new java.util.NoSuchElementException(
                    "container not found (\"" + container + "\")");
        }
        String containerId = id;
        return command -> {
            var r = cri.execSync(containerId, command, Duration.ofMinutes(30));
            return new org.gpuoperator.e2e.apiserver.PodExec.Result(
                    r.getStdout().toByteArray(), r.getStderr().toByteArray(), r.getExitCode());
        };
    }

    private Optional<PodWorker> worker(String podName) {
        return workers.values().stream()
                .filter(w -> !w.stopRequested && w.pod.getMetadata().getName().equals(podName))
                .findFirst();
    }

    /**
     * Whether the runner still has work for the pod with this uid (it is running or being torn
     * down).
     */
    public boolean has(String uid) {
        return workers.containsKey(uid);
    }

    /**
     * The most a container gets between SIGTERM and SIGKILL when the whole node stops: enough for
     * the agents' clean-up on SIGTERM (they exit within a second), without waiting out a workload's
     * 30 s default for a process that ignores SIGTERM (a shell's {@code sleep} as PID 1). Deleting
     * a pod still gives its full grace period.
     */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    /**
     * Stops every pod: containers with their grace period (at most {@link #CLOSE_GRACE}), then
     * sandboxes (also any left from an earlier runner).
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Thread> stops = new ArrayList<>();
        for (PodWorker w : workers.values()) {
            stops.add(Thread.ofVirtual().start(() -> w.teardown(CLOSE_GRACE)));
        }
        for (Thread t : stops) {
            try {
                t.join(Duration.ofSeconds(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.clear();
        try {
            List<PodSandbox> left = new ArrayList<>();
            untilDone(() -> left.addAll(cri.listPodSandbox(PodSandboxFilter.getDefaultInstance())));
            for (PodSandbox s : left) {
                untilDone(() -> cri.stopPodSandbox(s.getId()));
                untilDone(() -> cri.removePodSandbox(s.getId()));
            }
        } catch (StatusRuntimeException e) {
            events.accept(nodeName + ": could not remove leftover sandboxes: " + e.getStatus());
        }
    }

    private static final java.util.regex.Pattern RESERVED =
            java.util.regex.Pattern.compile("is reserved for \"([0-9a-f]{64})\"");

    /**
     * The container containerd holds a name for, from CreateContainer's "failed to reserve
     * container name ...: name ... is reserved for "ID"" (empty for any other error).
     */
    static java.util.Optional<String> reservedFor(String description) {
        if (description == null) {
            return java.util.Optional.empty();
        }
        java.util.regex.Matcher m = RESERVED.matcher(description);
        return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
    }

    /**
     * Whether the runtime is down or still starting (containerd's CRI answers UNKNOWN until it is
     * initialized).
     */
    static boolean restarting(StatusRuntimeException e) {
        io.grpc.Status st = e.getStatus();
        return st.getCode() == io.grpc.Status.Code.UNAVAILABLE
                || (st.getCode() == io.grpc.Status.Code.UNKNOWN
                        && st.getDescription() != null
                        && st.getDescription().contains("server is not initialized yet"));
    }

    /**
     * How long teardown waits out a runtime that is restarting (the toolkit's cleanup restarts
     * containerd).
     */
    static final Duration RUNTIME_RESTART_WAIT = Duration.ofSeconds(60);

    /**
     * Runs a teardown call until it is done, as the kubelet keeps trying: a restarting runtime is
     * waited out up to {@link #RUNTIME_RESTART_WAIT}; NOT_FOUND means there is nothing left to do.
     */
    private void untilDone(Runnable call) {
        Instant deadline = clock.instant().plus(RUNTIME_RESTART_WAIT);
        while (true) {
            try {
                call.run();
                return;
            } catch (StatusRuntimeException e) {
                io.grpc.Status.Code code = e.getStatus().getCode();
                if (code == io.grpc.Status.Code.NOT_FOUND) {
                    return;
                }
                if (!restarting(e) || clock.instant().isAfter(deadline)) {
                    throw e;
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    // ---- one pod

    /** A container slot: one spec container over its successive CRI containers. */
    private static final class Slot {
        final Container spec;
        final boolean init;
        // read by runningPods/endpoint/crash from other threads
        volatile String containerId;
        String imageRef;
        int restartCount;

        /** the restart count whose start had its image step (present or pulled); -1: none */
        int imageReadyFor = -1;

        CrashLoop.Schedule schedule = CrashLoop.Schedule.FRESH;
        Instant runningSince;
        volatile State state = new State.Waiting("ContainerCreating", null);
        State.Terminated lastTerminated;
        long seenExitAt; // finishedAt of the exit already handled
        boolean ready;
        final ProbeState readiness = new ProbeState();
        final ProbeState liveness = new ProbeState();

        Slot(Container spec, boolean init) {
            this.spec = spec;
            this.init = init;
        }

        boolean succeeded() {
            return state instanceof State.Terminated t && t.exitCode() == 0;
        }
    }

    private static final class ProbeState {
        Instant lastAt;
        int failures;
        int successes;

        void reset() {
            lastAt = null;
            failures = 0;
            successes = 0;
        }
    }

    private final class PodWorker {
        final String uid;
        volatile Pod pod;
        volatile boolean stopRequested;
        final AtomicBoolean busy = new AtomicBoolean();
        Instant lastStep = Instant.EPOCH;
        String lastVersion;
        final List<Slot> init = new ArrayList<>();
        final List<Slot> main = new ArrayList<>();
        String sandboxId;
        int sandboxAttempt;
        PodSandboxConfig sandboxConfig;
        volatile String podIp;
        Instant startTime;
        String mountError;
        Instant lastVolumeRefresh;
        AccountLookup account;
        final Map<String, Map<String, VolumeFiles.File>> published = new LinkedHashMap<>();

        /** image → its pull back-off in this pod (the kubelet keys it by pod uid and image) */
        final Map<String, ImagePull.Backoff> pullBackoff = new java.util.HashMap<>();

        final Set<String> announced = new HashSet<>();
        PodStatus written;
        boolean tornDown;

        /** container name -> what its devices add; null until the pod is admitted */
        Map<String, DeviceAdmission.ContainerDevices> devices;

        /** the device manager's refusal: the pod failed for good */
        String rejected;

        /**
         * the pod holds devices in the node's device manager (released at teardown, or reclaimed
         * once terminal)
         */
        volatile boolean holdsDevices;

        PodWorker(Pod pod) {
            this.uid = pod.getMetadata().getUid();
            this.pod = pod;
            PodToCri.nullSafe(pod.getSpec().getInitContainers())
                    .forEach(c -> init.add(new Slot(c, true)));
            pod.getSpec().getContainers().forEach(c -> main.add(new Slot(c, false)));
        }

        void offer(Pod latest) {
            pod = latest;
            boolean changed =
                    !java.util.Objects.equals(
                            latest.getMetadata().getResourceVersion(), lastVersion);
            kick(changed);
        }

        void kick(boolean now) {
            if (!now
                    && Duration.between(lastStep, clock.instant()).compareTo(settings.minInterval())
                            < 0) {
                return;
            }
            if (busy.compareAndSet(false, true)) {
                try {
                    executor.execute(
                            () -> {
                                try {
                                    step();
                                } catch (RuntimeException e) {
                                    events.accept(nodeName + ": pod " + name() + ": " + e);
                                } finally {
                                    lastStep = clock.instant();
                                    busy.set(false);
                                }
                            });
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    busy.set(false);
                }
            }
        }

        /** The first main container's id while it runs. */
        List<Slot> allSlots() {
            List<Slot> all = new ArrayList<>(init);
            all.addAll(main);
            return all;
        }

        Optional<String> runningMain() {
            Slot s = main.getFirst();
            String id = s.containerId;
            return id != null && s.state instanceof State.Running
                    ? Optional.of(id)
                    : Optional.empty();
        }

        String name() {
            return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        }

        void event(String what) {
            events.accept(nodeName + ": pod " + name() + ": " + what);
        }

        /**
         * A core/v1 Event about this pod from the kubelet, as {@code kubectl describe pod} lists
         * them.
         */
        void recordEvent(String type, String reason, String message) {
            podEvents.record(pod, type, reason, message, "kubelet", nodeName);
        }

        /**
         * The pod's service account's automountServiceAccountToken (null: unset or not found). Read
         * once the account is found and then kept, as admission decides at the pod's creation: a
         * step runs up to four times a second per pod, and read each time it cost one GET each (a
         * scan of every stored object in the mock API server).
         */
        Boolean accountAutomount() {
            if (account == null || !account.found()) {
                account = lookUpAccount(pod);
            }
            return account.automount();
        }

        void step() {
            if (stopRequested) {
                teardown();
                workers.remove(uid);
                if (pod.getMetadata().getDeletionTimestamp() != null) {
                    finishDeletion();
                }
                return;
            }
            lastVersion = pod.getMetadata().getResourceVersion();
            if (startTime == null) {
                startTime = clock.instant();
            }
            if (devices == null && rejected == null) {
                admit();
            }
            if (rejected != null) {
                writeRejected();
                return;
            }
            Path podDir = PodToCri.podDir(pod, nodeRoot);
            Instant now = clock.instant();
            if (sandboxId == null
                    || lastVolumeRefresh == null
                    || !now.isBefore(lastVolumeRefresh.plus(VOLUME_REFRESH))) {
                mountError = prepareVolumes(podDir);
                lastVolumeRefresh = now;
                checkSandbox();
            }
            if (mountError != null) {
                writeStatus();
                return;
            }
            if (sandboxId == null && !startSandbox()) {
                writeStatus();
                return;
            }
            PodToCri.PodContext ctx =
                    new PodToCri.PodContext(
                            nodeName,
                            nodeRoot,
                            podDir,
                            podIp,
                            settings.hostIp(),
                            settings.access(),
                            accountAutomount());
            boolean initDone = true;
            for (Slot s : init) {
                if (s.succeeded()) {
                    continue;
                }
                drive(s, ctx);
                if (!s.succeeded()) {
                    initDone = false;
                    break;
                }
            }
            for (Slot s : main) {
                if (initDone) {
                    drive(s, ctx);
                    probe(s);
                } else {
                    s.state = new State.Waiting("PodInitializing", null);
                }
            }
            writeStatus();
        }

        /**
         * The kubelet's device admission, before anything of the pod is created: a pod asking for
         * devices gets them from the node's device manager or fails for good ({@code
         * UnexpectedAdmissionError}). As the kubelet, devices that terminated pods still hold are
         * reclaimed first.
         */
        void admit() {
            if (DeviceAdmission.deviceRequests(pod).isEmpty()) {
                devices = Map.of();
                return;
            }
            for (PodWorker w : workers.values()) {
                if (w != this && w.holdsDevices && w.terminal()) {
                    w.holdsDevices = false;
                    admission.release(
                            w.pod.getMetadata().getNamespace(), w.pod.getMetadata().getName());
                }
            }
            try {
                devices = admission.admit(pod);
                holdsDevices = true;
                devices.forEach(
                        (container, d) ->
                                event(
                                        "admitted: container "
                                                + container
                                                + " devices "
                                                + d.envs()
                                                + (d.annotations().isEmpty()
                                                        ? ""
                                                        : " annotations " + d.annotations())
                                                + (d.devices().isEmpty()
                                                        ? ""
                                                        : " device nodes " + d.devices().size())));
            } catch (DeviceAdmission.Rejected e) {
                rejected = e.getMessage();
                event(DeviceAdmission.Rejected.REASON + ": " + rejected);
            }
        }

        boolean terminal() {
            PodStatus st = written;
            return rejected != null
                    || st != null
                            && ("Succeeded".equals(st.getPhase())
                                    || "Failed".equals(st.getPhase()));
        }

        void writeRejected() {
            publish(
                    PodStatusComputer.rejected(
                            DeviceAdmission.Rejected.REASON,
                            rejected,
                            settings.hostIp(),
                            startTime,
                            written,
                            clock.instant()));
        }

        /** Writes the status when it differs from the one last written. */
        void publish(PodStatus next) {
            if (!PodStatusComputer.changed(written, next)) {
                return;
            }
            try {
                client.pods()
                        .inNamespace(pod.getMetadata().getNamespace())
                        .withName(pod.getMetadata().getName())
                        .editStatus(
                                p -> {
                                    p.setStatus(next);
                                    return p;
                                });
                written = next;
            } catch (KubernetesClientException e) {
                // the pod went away in between; the next pass tears it down
            }
        }

        /** Materializes the pod's volumes; returns the kubelet's mount error, or null. */
        String prepareVolumes(Path podDir) {
            String ns = pod.getMetadata().getNamespace();
            try {
                for (Volume v : PodToCri.nullSafe(pod.getSpec().getVolumes())) {
                    Path dir = PodToCri.volumeSource(v, nodeRoot, podDir);
                    if (v.getHostPath() != null) {
                        HostPathCheck.Outcome o =
                                HostPathCheck.decide(
                                        v.getHostPath().getType(),
                                        v.getHostPath().getPath(),
                                        HostPathCheck.kindOf(dir));
                        String failure = HostPathCheck.apply(o, dir);
                        if (failure != null) {
                            return mountFailed(v, failure);
                        }
                    } else if (v.getEmptyDir() != null) {
                        java.nio.file.Files.createDirectories(dir);
                    } else if (v.getConfigMap() != null) {
                        var src = v.getConfigMap();
                        ConfigMap cm =
                                client.configMaps().inNamespace(ns).withName(src.getName()).get();
                        if (cm == null && !Boolean.TRUE.equals(src.getOptional())) {
                            return mountFailed(v, "configmap \"" + src.getName() + "\" not found");
                        }
                        publish(
                                v.getName(),
                                dir,
                                cm == null
                                        ? Map.of()
                                        : VolumeFiles.configMap(
                                                cm, src.getItems(), src.getDefaultMode()));
                    } else if (v.getSecret() != null) {
                        var src = v.getSecret();
                        Secret s =
                                client.secrets()
                                        .inNamespace(ns)
                                        .withName(src.getSecretName())
                                        .get();
                        if (s == null && !Boolean.TRUE.equals(src.getOptional())) {
                            return mountFailed(
                                    v, "secret \"" + src.getSecretName() + "\" not found");
                        }
                        publish(
                                v.getName(),
                                dir,
                                s == null
                                        ? Map.of()
                                        : VolumeFiles.secret(
                                                s, src.getItems(), src.getDefaultMode()));
                    }
                }
                if (settings.access() != null
                        && PodToCri.automountsServiceAccount(pod, accountAutomount())) {
                    publish(
                            PodToCri.SA_VOLUME,
                            PodToCri.volumeDir(podDir, "projected", PodToCri.SA_VOLUME),
                            VolumeFiles.serviceAccount(
                                    settings.access(), ns, PodToCri.serviceAccountName(pod)));
                }
                return null;
            } catch (PodToCri.ConfigError
                    | IOException
                    | IllegalArgumentException
                    | KubernetesClientException e) {
                return "MountVolume.SetUp failed: " + e.getMessage();
            }
        }

        String mountFailed(Volume v, String why) {
            String msg = "MountVolume.SetUp failed for volume \"" + v.getName() + "\" : " + why;
            if (announced.add(msg)) {
                event("FailedMount: " + msg);
            }
            return msg;
        }

        void publish(String volume, Path dir, Map<String, VolumeFiles.File> files)
                throws IOException {
            if (!files.equals(published.get(volume))) {
                VolumeFiles.write(dir, files);
                published.put(volume, files);
            }
        }

        /**
         * A sandbox that is gone or no longer ready (stopped behind our back, its network lost)
         * takes the pod's containers with it: as the kubelet, kill what is left and start over with
         * a new sandbox, init containers included, each container's restart count one up.
         */
        void checkSandbox() {
            if (sandboxId == null) {
                return;
            }
            try {
                if (cri.podSandboxStatus(sandboxId).getState() == PodSandboxState.SANDBOX_READY) {
                    return;
                }
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() != io.grpc.Status.Code.NOT_FOUND) {
                    return; // the runtime is busy or restarting: ask again later
                }
            }
            event(
                    "sandbox "
                            + sandboxId.substring(0, 12)
                            + " is not ready; recreating it and the pod's containers");
            for (Slot s : concat(init, main)) {
                if (s.containerId != null) {
                    try {
                        cri.stopContainer(s.containerId, Duration.ZERO);
                        cri.removeContainer(s.containerId);
                    } catch (StatusRuntimeException e) {
                        // gone with the sandbox
                    }
                    s.containerId = null;
                    s.restartCount++;
                }
                s.ready = false;
                s.state = new State.Waiting("ContainerCreating", null);
            }
            try {
                cri.stopPodSandbox(sandboxId);
                cri.removePodSandbox(sandboxId);
            } catch (StatusRuntimeException e) {
                // already gone
            }
            sandboxId = null;
            sandboxAttempt++;
            podIp = null;
        }

        boolean startSandbox() {
            String handler = "";
            String rc = pod.getSpec().getRuntimeClassName();
            if (rc != null && !rc.isEmpty()) {
                RuntimeClass r = client.resources(RuntimeClass.class).withName(rc).get();
                if (r == null) {
                    return sandboxFailed("RuntimeClass \"" + rc + "\" not found");
                }
                handler = r.getHandler();
            }
            try {
                java.nio.file.Files.createDirectories(PodToCri.logDirectory(pod, nodeRoot));
                sandboxConfig = PodToCri.sandbox(pod, nodeRoot, sandboxAttempt);
                sandboxId = cri.runPodSandbox(sandboxConfig, handler);
                podIp =
                        PodToCri.hostNetwork(pod)
                                ? settings.hostIp()
                                : cri.podSandboxStatus(sandboxId).getNetwork().getIp();
                event(
                        "sandbox "
                                + sandboxId.substring(0, 12)
                                + " ip "
                                + podIp
                                + (handler.isEmpty() ? "" : " handler " + handler));
                return true;
            } catch (StatusRuntimeException | IOException e) {
                // as the kubelet: the next try is a new attempt (a new sandbox name), and a
                // sandbox this attempt may have left (containerd went away mid-call) is removed
                sandboxAttempt++;
                removeLeftoverSandboxes();
                return sandboxFailed("Failed to create pod sandbox: " + e.getMessage());
            }
        }

        private void removeLeftoverSandboxes() {
            try {
                PodSandboxFilter mine =
                        PodSandboxFilter.newBuilder()
                                .putLabelSelector(
                                        "io.kubernetes.pod.uid", pod.getMetadata().getUid())
                                .putLabelSelector(
                                        "io.kubernetes.pod.name", pod.getMetadata().getName())
                                .build();
                for (var left : cri.listPodSandbox(mine)) {
                    cri.stopPodSandbox(left.getId());
                    cri.removePodSandbox(left.getId());
                }
            } catch (StatusRuntimeException e) {
                // containerd is still away: the next attempt's name does not collide anyway
            }
        }

        boolean sandboxFailed(String message) {
            if (announced.add(message)) {
                event("FailedCreatePodSandBox: " + message);
            }
            for (Slot s : init.isEmpty() ? main : init) {
                s.state = new State.Waiting("ContainerCreating", message);
            }
            return false;
        }

        void drive(Slot s, PodToCri.PodContext ctx) {
            Instant now = clock.instant();
            if (s.containerId != null
                    && s.state instanceof State.Running
                    && listedRunning(s.containerId)) {
                return; // still running at the last relist
            }
            if (s.containerId != null) {
                ContainerStatus cs;
                try {
                    cs = cri.containerStatus(s.containerId);
                } catch (StatusRuntimeException e) {
                    return; // keep the last known state; the next pass asks again
                }
                if (cs.getState() == ContainerState.CONTAINER_RUNNING) {
                    if (!(s.state instanceof State.Running)) {
                        s.state = new State.Running(Instant.ofEpochSecond(0, cs.getStartedAt()));
                        s.runningSince = now;
                    }
                    return;
                }
                if (cs.getState() == ContainerState.CONTAINER_CREATED
                        && s.state instanceof State.Waiting w
                        && "RunContainerError".equals(w.reason())) {
                    // the start never reached containerd (it was restarting, e.g. reloaded by
                    // the toolkit): start it again, as the kubelet's next sync would
                    try {
                        cri.startContainer(s.containerId);
                        s.state = new State.Running(clock.instant());
                        s.runningSince = clock.instant();
                        event("container " + s.spec.getName() + " started on retry");
                    } catch (StatusRuntimeException e) {
                        s.state =
                                new State.Waiting(
                                        "RunContainerError", e.getStatus().getDescription());
                    }
                    return;
                }
                if (cs.getState() == ContainerState.CONTAINER_UNKNOWN) {
                    // containerd lost the container's task (it restarted while starting it: seen
                    // in CI when a scenario restarts containerd): as the kubelet does, kill it and
                    // start a new one; a stop that fails is tried again at the next pass
                    try {
                        cri.stopContainer(s.containerId, Duration.ZERO);
                        cri.removeContainer(s.containerId);
                    } catch (StatusRuntimeException e) {
                        event(
                                "container "
                                        + s.spec.getName()
                                        + " in unknown state, not stopped yet: "
                                        + e.getStatus());
                        return;
                    }
                    event(
                            "container "
                                    + s.spec.getName()
                                    + " in unknown state: killed, created again");
                    s.containerId = null;
                    s.ready = false;
                    s.restartCount++;
                    create(s, ctx);
                    return;
                }
                if (cs.getState() != ContainerState.CONTAINER_EXITED) {
                    return; // created, not started yet: the next pass sees more
                }
                State.Terminated t =
                        new State.Terminated(
                                cs.getExitCode(),
                                emptyToNull(cs.getReason()),
                                emptyToNull(cs.getMessage()),
                                cs.getStartedAt() == 0
                                        ? null
                                        : Instant.ofEpochSecond(0, cs.getStartedAt()),
                                Instant.ofEpochSecond(0, cs.getFinishedAt()));
                s.ready = false;
                if (!CrashLoop.restarts(policy(), s.init, t.exitCode())) {
                    s.state = t;
                    return;
                }
                if (s.seenExitAt != cs.getFinishedAt()) {
                    s.seenExitAt = cs.getFinishedAt();
                    s.lastTerminated = t;
                    Duration ran =
                            t.startedAt() == null
                                    ? Duration.ZERO
                                    : Duration.between(t.startedAt(), t.finishedAt());
                    s.schedule = CrashLoop.afterExit(settings.backoff(), s.schedule, ran, now);
                    event(
                            "container "
                                    + s.spec.getName()
                                    + " exited "
                                    + t.exitCode()
                                    + (s.schedule.delay().isZero()
                                            ? "; restarting"
                                            : "; back-off "
                                                    + s.schedule.delay().toMillis()
                                                    + " ms"));
                }
                if (CrashLoop.inBackOff(s.schedule, now)) {
                    s.state =
                            new State.Waiting(
                                    "CrashLoopBackOff",
                                    CrashLoop.message(
                                            s.schedule,
                                            s.spec.getName(),
                                            pod.getMetadata().getName(),
                                            pod.getMetadata().getNamespace(),
                                            uid));
                    return;
                }
                try {
                    cri.removeContainer(s.containerId);
                } catch (StatusRuntimeException e) {
                    event("could not remove container " + s.containerId + ": " + e.getStatus());
                }
                s.containerId = null;
                s.restartCount++;
            }
            create(s, ctx);
        }

        /**
         * The kubelet's image step ({@link ImagePull}): present, or pulled from the simulated
         * registry (the image that serves it tagged under the pod's image name in containerd), with
         * the kubelet's events; returns the image's id for the status, or null with the slot
         * waiting ({@code ErrImagePull}, {@code ImagePullBackOff}, {@code ErrImageNeverPull},
         * {@code InvalidImageName}).
         */
        String pullImage(Slot s, String image) {
            Instant now = clock.instant();
            String policy = ImagePull.policy(s.spec.getImagePullPolicy(), image);
            Optional<org.gpuoperator.kubelet.cri.v1.Image> present;
            try {
                present =
                        ImageName.parse(image).isEmpty()
                                ? Optional.empty()
                                : cri.imageStatus(image);
            } catch (StatusRuntimeException e) {
                s.state = new State.Waiting("ContainerCreating", "image status: " + e.getStatus());
                return null;
            }
            if (present.isPresent() && s.imageReadyFor == s.restartCount) {
                // this start already had its image step (its create is being retried, e.g. after
                // CreateContainerConfigError): no second pull, no second event
                return imageId(present.get());
            }
            ImagePull.Backoff backoff = pullBackoff.getOrDefault(image, ImagePull.Backoff.NONE);
            switch (ImagePull.decide(image, policy, present.isPresent(), backoff, now)) {
                case ImagePull.Invalid i -> {
                    return waitOnImage(
                            s,
                            ImagePull.INVALID_IMAGE_NAME,
                            i.message(),
                            "Warning",
                            "InspectFailed",
                            i.message(),
                            ImagePull.INVALID_IMAGE_NAME + " " + image);
                }
                case ImagePull.NeverPull n -> {
                    return waitOnImage(
                            s,
                            ImagePull.ERR_IMAGE_NEVER_PULL,
                            n.message(),
                            "Warning",
                            ImagePull.ERR_IMAGE_NEVER_PULL,
                            n.message(),
                            ImagePull.ERR_IMAGE_NEVER_PULL + " " + image);
                }
                case ImagePull.BackingOff b -> {
                    // announced once per back-off period
                    return waitOnImage(
                            s,
                            ImagePull.IMAGE_PULL_BACK_OFF,
                            b.waitingMessage(),
                            "Normal",
                            "BackOff",
                            b.eventMessage(),
                            "BackOff " + image + " " + backoff.until());
                }
                case ImagePull.Present p -> {
                    recordEvent("Normal", "Pulled", p.message());
                    s.imageReadyFor = s.restartCount;
                    return imageId(present.get());
                }
                case ImagePull.Pull p -> {
                    recordEvent("Normal", "Pulling", p.message());
                    return pull(s, image, now);
                }
            }
        }

        /** Pulls from the simulated registry; null when it failed (the slot waits). */
        String pull(Slot s, String image, Instant started) {
            long t0 = System.nanoTime();
            String error;
            switch (settings.registry().resolve(image)) {
                case SimulatedRegistry.Served served -> {
                    try {
                        PrivateContainerd.tagImage(
                                cri.socket(), served.source(), served.name().normalized());
                        Optional<org.gpuoperator.kubelet.cri.v1.Image> pulled = tagged(image);
                        if (pulled.isPresent()) {
                            Duration took = Duration.ofNanos(System.nanoTime() - t0);
                            pullBackoff.remove(image);
                            s.imageReadyFor = s.restartCount;
                            recordEvent(
                                    "Normal",
                                    "Pulled",
                                    ImagePull.pulled(
                                            image,
                                            took,
                                            max(took, Duration.between(started, clock.instant())),
                                            pulled.get().getSize()));
                            event(
                                    "pulled "
                                            + image
                                            + " from the simulated registry ("
                                            + served.kind()
                                            + ": "
                                            + served.source()
                                            + ")");
                            return imageId(pulled.get());
                        }
                        error =
                                "rpc error: code = NotFound desc = "
                                        + served.name().normalized()
                                        + ": not found after tagging "
                                        + served.source();
                    } catch (IOException e) {
                        error = "rpc error: code = Unknown desc = " + e.getMessage();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        error = "rpc error: code = Canceled desc = interrupted";
                    } catch (StatusRuntimeException e) {
                        error =
                                "rpc error: code = "
                                        + e.getStatus().getCode()
                                        + " desc = "
                                        + e.getStatus().getDescription();
                    }
                }
                case SimulatedRegistry.NotServed n -> error = n.error();
                case SimulatedRegistry.Invalid i -> error = i.message();
            }
            recordEvent("Warning", "Failed", ImagePull.failedToPull(image, error));
            pullBackoff.put(
                    image,
                    ImagePull.failed(
                            settings.backoff(),
                            pullBackoff.getOrDefault(image, ImagePull.Backoff.NONE),
                            error,
                            clock.instant()));
            event("ErrImagePull: " + image + ": " + error);
            recordEvent("Warning", "Failed", ImagePull.error(ImagePull.ERR_IMAGE_PULL));
            s.state = new State.Waiting(ImagePull.ERR_IMAGE_PULL, error);
            return null;
        }

        /**
         * The image as CRI sees it once the tag landed: containerd's CRI plugin learns of a new
         * image name from an event, after {@code ctr images tag} has returned.
         */
        Optional<org.gpuoperator.kubelet.cri.v1.Image> tagged(String image)
                throws InterruptedException {
            for (int attempt = 0; ; attempt++) {
                Optional<org.gpuoperator.kubelet.cri.v1.Image> seen = cri.imageStatus(image);
                if (seen.isPresent() || attempt == 40) {
                    return seen;
                }
                Thread.sleep(50);
            }
        }

        /**
         * The slot waits on its image with the kubelet's reason; the event and the start's {@code
         * Error: <reason>} are recorded once per {@code once} key.
         */
        String waitOnImage(
                Slot s,
                String reason,
                String message,
                String eventType,
                String eventReason,
                String eventMessage,
                String once) {
            s.state = new State.Waiting(reason, message);
            if (announced.add(once)) {
                recordEvent(eventType, eventReason, eventMessage);
                recordEvent("Warning", "Failed", ImagePull.error(reason));
            }
            return null;
        }

        void create(Slot s, PodToCri.PodContext ctx) {
            String image = s.spec.getImage();
            String imageId = pullImage(s, image);
            if (imageId == null) {
                return;
            }
            org.gpuoperator.kubelet.cri.v1.ContainerConfig config;
            try {
                config =
                        PodToCri.container(
                                pod,
                                s.spec,
                                s.restartCount,
                                image,
                                ctx,
                                objectData(),
                                devices.getOrDefault(
                                        s.spec.getName(), DeviceAdmission.ContainerDevices.NONE));
            } catch (PodToCri.ConfigError e) {
                if (announced.add("config " + e.getMessage())) {
                    event(
                            "container "
                                    + s.spec.getName()
                                    + ": CreateContainerConfigError: "
                                    + e.getMessage());
                    recordEvent("Warning", "Failed", "Error: " + e.getMessage());
                }
                s.state = new State.Waiting("CreateContainerConfigError", e.getMessage());
                return;
            }
            try {
                s.containerId = cri.createContainer(sandboxId, config, sandboxConfig);
            } catch (StatusRuntimeException e) {
                // a create that outlived its deadline may have gone through: containerd then holds
                // the name for that unstarted container, and every retry of this attempt fails.
                // It is this slot's own, so it goes (as the kubelet's container GC would) and the
                // next pass creates the container again
                reservedFor(e.getStatus().getDescription())
                        .ifPresent(
                                id -> {
                                    try {
                                        cri.removeContainer(id);
                                        event(
                                                "container "
                                                        + s.spec.getName()
                                                        + ": removed "
                                                        + id
                                                        + ", left by a create that outlived its deadline");
                                    } catch (StatusRuntimeException notYet) {
                                        // still being created: the next pass tries again
                                    }
                                });
                s.state = new State.Waiting("CreateContainerError", e.getStatus().getDescription());
                recordEvent("Warning", "Failed", "Error: " + e.getStatus().getDescription());
                return;
            }
            recordEvent("Normal", "Created", PodEvents.created(s.spec.getName()));
            s.imageRef = imageId;
            s.readiness.reset();
            s.liveness.reset();
            s.ready = false;
            try {
                cri.startContainer(s.containerId);
                s.state = new State.Running(clock.instant());
                s.runningSince = clock.instant();
                recordEvent("Normal", "Started", PodEvents.started(s.spec.getName()));
            } catch (StatusRuntimeException e) {
                // containerd records the failed start as an exit (128); the next pass restarts with
                // back-off
                s.state = new State.Waiting("RunContainerError", e.getStatus().getDescription());
                recordEvent("Warning", "Failed", "Error: " + e.getStatus().getDescription());
            }
        }

        String policy() {
            return pod.getSpec().getRestartPolicy() == null
                    ? "Always"
                    : pod.getSpec().getRestartPolicy();
        }

        PodToCri.ObjectData objectData() {
            String ns0 = pod.getMetadata().getNamespace();
            return new PodToCri.ObjectData() {
                public Optional<Map<String, String>> configMap(String ns, String name) {
                    return Optional.ofNullable(
                                    client.configMaps().inNamespace(ns).withName(name).get())
                            .map(cm -> PodToCri.nullSafe(cm.getData()));
                }

                public Optional<Map<String, String>> secret(String ns, String name) {
                    return Optional.ofNullable(
                                    client.secrets().inNamespace(ns).withName(name).get())
                            .map(
                                    s -> {
                                        Map<String, String> out = new LinkedHashMap<>();
                                        VolumeFiles.secretData(s)
                                                .forEach(
                                                        (k, v) ->
                                                                out.put(
                                                                        k,
                                                                        new String(
                                                                                v,
                                                                                StandardCharsets
                                                                                        .UTF_8)));
                                        return out;
                                    });
                }
            };
        }

        // ---- probes

        void probe(Slot s) {
            if (!(s.state instanceof State.Running) || s.containerId == null) {
                s.ready = false;
                return;
            }
            Probe readiness = s.spec.getReadinessProbe();
            if (readiness == null) {
                s.ready = true;
            } else if (due(readiness, s.readiness, s)) {
                boolean ok = runProbe(readiness, s);
                if (ok) {
                    s.readiness.failures = 0;
                    s.readiness.successes++;
                    if (s.readiness.successes >= threshold(readiness.getSuccessThreshold())) {
                        s.ready = true;
                    }
                } else {
                    s.readiness.successes = 0;
                    s.readiness.failures++;
                    if (s.readiness.failures >= threshold(readiness.getFailureThreshold(), 3)) {
                        s.ready = false;
                    }
                }
            }
            Probe liveness = s.spec.getLivenessProbe();
            if (liveness != null && due(liveness, s.liveness, s)) {
                if (runProbe(liveness, s)) {
                    s.liveness.failures = 0;
                } else if (++s.liveness.failures >= threshold(liveness.getFailureThreshold(), 3)) {
                    String failed = s.spec.getName() + " failed liveness probe, will be restarted";
                    event("container " + failed);
                    recordEvent("Normal", "Killing", "Container " + failed); // the kubelet's words
                    s.liveness.reset();
                    try {
                        cri.stopContainer(s.containerId, grace());
                    } catch (StatusRuntimeException e) {
                        event("could not stop container " + s.containerId + ": " + e.getStatus());
                    }
                }
            }
        }

        boolean due(Probe p, ProbeState st, Slot s) {
            Instant now = clock.instant();
            if (now.isBefore(
                    s.runningSince.plusSeconds(orDefault(p.getInitialDelaySeconds(), 0)))) {
                return false;
            }
            if (st.lastAt != null
                    && now.isBefore(st.lastAt.plusSeconds(orDefault(p.getPeriodSeconds(), 10)))) {
                return false;
            }
            st.lastAt = now;
            return true;
        }

        boolean runProbe(Probe p, Slot s) {
            Duration timeout = Duration.ofSeconds(orDefault(p.getTimeoutSeconds(), 1));
            String host = PodToCri.hostNetwork(pod) ? settings.hostIp() : podIp;
            try {
                if (p.getExec() != null) {
                    return cri.execSync(s.containerId, p.getExec().getCommand(), timeout)
                                    .getExitCode()
                            == 0;
                }
                if (p.getHttpGet() != null) {
                    var get = p.getHttpGet();
                    String h =
                            get.getHost() == null || get.getHost().isEmpty() ? host : get.getHost();
                    String path = get.getPath() == null ? "/" : get.getPath();
                    String scheme =
                            get.getScheme() == null ? "http" : get.getScheme().toLowerCase();
                    URI uri =
                            URI.create(
                                    scheme
                                            + "://"
                                            + h
                                            + ":"
                                            + port(get.getPort(), s.spec)
                                            + (path.startsWith("/") ? path : "/" + path));
                    int code =
                            http.send(
                                            HttpRequest.newBuilder(uri)
                                                    .timeout(timeout)
                                                    .GET()
                                                    .build(),
                                            HttpResponse.BodyHandlers.discarding())
                                    .statusCode();
                    return code >= 200 && code < 400;
                }
                if (p.getTcpSocket() != null) {
                    try (Socket socket = new Socket()) {
                        socket.connect(
                                new InetSocketAddress(
                                        host, port(p.getTcpSocket().getPort(), s.spec)),
                                (int) timeout.toMillis());
                        return true;
                    }
                }
                return true; // a probe with no handler (e.g. gRPC, unsupported here) counts as
                // passing
            } catch (IOException | StatusRuntimeException | IllegalArgumentException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        int port(IntOrString port, Container c) {
            if (port.getIntVal() != null) {
                return port.getIntVal();
            }
            for (ContainerPort cp : PodToCri.nullSafe(c.getPorts())) {
                if (port.getStrVal().equals(cp.getName())) {
                    return cp.getContainerPort();
                }
            }
            throw new IllegalArgumentException("no container port named " + port.getStrVal());
        }

        // ---- status and teardown

        void writeStatus() {
            List<ContainerView> initViews = init.stream().map(this::view).toList();
            List<ContainerView> mainViews = main.stream().map(this::view).toList();
            if (mountError != null) {
                String msg = mountError;
                mainViews =
                        main.stream()
                                .map(
                                        s ->
                                                new ContainerView(
                                                        s.spec.getName(),
                                                        s.spec.getImage(),
                                                        null,
                                                        null,
                                                        new State.Waiting("ContainerCreating", msg),
                                                        s.lastTerminated,
                                                        s.restartCount,
                                                        false))
                                .toList();
            }
            publish(
                    PodStatusComputer.compute(
                            new PodStatusComputer.Input(
                                    initViews,
                                    mainViews,
                                    policy(),
                                    podIp,
                                    settings.hostIp(),
                                    startTime),
                            written,
                            clock.instant()));
        }

        ContainerView view(Slot s) {
            return new ContainerView(
                    s.spec.getName(),
                    s.spec.getImage(),
                    s.imageRef,
                    s.containerId,
                    s.state,
                    s.lastTerminated,
                    s.restartCount,
                    s.ready);
        }

        /**
         * As the kubelet once a terminating pod's containers are gone: delete it for good (grace
         * 0), if still there.
         */
        void finishDeletion() {
            try {
                Pod current =
                        client.pods()
                                .inNamespace(pod.getMetadata().getNamespace())
                                .withName(pod.getMetadata().getName())
                                .get();
                if (current != null && uid.equals(current.getMetadata().getUid())) {
                    client.pods()
                            .inNamespace(pod.getMetadata().getNamespace())
                            .withName(pod.getMetadata().getName())
                            .withGracePeriod(0)
                            .delete();
                }
            } catch (KubernetesClientException e) {
                event("could not finish deletion: " + e.getMessage());
            }
        }

        Duration grace() {
            Long g = pod.getMetadata().getDeletionGracePeriodSeconds();
            if (g == null) {
                g = pod.getSpec().getTerminationGracePeriodSeconds();
            }
            return Duration.ofSeconds(g == null ? 30 : g);
        }

        synchronized void teardown() {
            teardown(grace());
        }

        /** Stops the containers with at most {@code maxGrace} after SIGTERM, then removes all. */
        synchronized void teardown(Duration maxGrace) {
            if (tornDown) {
                return;
            }
            tornDown = true;
            Duration own = grace();
            Duration grace = own.compareTo(maxGrace) > 0 ? maxGrace : own;
            List<Thread> stops = new ArrayList<>();
            for (Slot s : concat(init, main)) {
                if (s.containerId != null) {
                    String id = s.containerId;
                    stops.add(
                            Thread.ofVirtual()
                                    .start(
                                            () -> {
                                                try {
                                                    cri.stopContainer(id, grace);
                                                } catch (StatusRuntimeException e) {
                                                    event(
                                                            "stop container "
                                                                    + id
                                                                    + ": "
                                                                    + e.getStatus());
                                                }
                                            }));
                }
            }
            for (Thread t : stops) {
                try {
                    t.join(grace.plus(cri.deadline()).plusSeconds(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            try {
                if (sandboxId != null) {
                    String id = sandboxId;
                    untilDone(() -> cri.stopPodSandbox(id));
                }
                for (Slot s : concat(init, main)) {
                    if (s.containerId != null) {
                        String id = s.containerId;
                        untilDone(() -> cri.removeContainer(id));
                    }
                }
                if (sandboxId != null) {
                    String id = sandboxId;
                    untilDone(() -> cri.removePodSandbox(id));
                }
                VolumeFiles.deleteTree(PodToCri.podDir(pod, nodeRoot));
                PodCgroups.remove(PodCgroups.CGROUP_FS, pod.getMetadata().getUid());
                event("stopped and removed");
            } catch (StatusRuntimeException | IOException e) {
                event("teardown incomplete: " + e.getMessage());
            }
            if (holdsDevices) { // its containers are stopped: the devices are free for the next pod
                holdsDevices = false;
                admission.release(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
                event("devices released");
            }
        }
    }

    /**
     * The pod's service account as read from the API server.
     *
     * @param found false when there is no such account (yet) or the read failed
     * @param automount its automountServiceAccountToken; null when unset or not found
     */
    private record AccountLookup(boolean found, Boolean automount) {}

    /**
     * The pod's service account, which decides the token volume when the pod does not, as the API
     * server's admission does.
     */
    private AccountLookup lookUpAccount(Pod pod) {
        try {
            ServiceAccount account =
                    client.serviceAccounts()
                            .inNamespace(pod.getMetadata().getNamespace())
                            .withName(PodToCri.serviceAccountName(pod))
                            .get();
            return account == null
                    ? new AccountLookup(false, null)
                    : new AccountLookup(true, account.getAutomountServiceAccountToken());
        } catch (KubernetesClientException e) {
            return new AccountLookup(false, null);
        }
    }

    private static List<Slot> concat(List<Slot> a, List<Slot> b) {
        List<Slot> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static int threshold(Integer v) {
        return v == null || v < 1 ? 1 : v;
    }

    private static int threshold(Integer v, int dflt) {
        return v == null || v < 1 ? dflt : v;
    }

    private static int orDefault(Integer v, int dflt) {
        return v == null ? dflt : v;
    }

    /**
     * What the status reports as {@code imageID}: the repository digest where containerd knows one,
     * else the image's id, as the kubelet reports CRI's image ref.
     */
    private static String imageId(org.gpuoperator.kubelet.cri.v1.Image image) {
        return image.getRepoDigestsCount() > 0 ? image.getRepoDigests(0) : image.getId();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
