package org.gpuoperator.e2e.simulate;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.HelmSequence.Manifest;

/**
 * helm upgrade and helm uninstall played against a simulated cluster, in {@link HelmSequence}'s
 * order. The cluster runs no Jobs: a hook Job is created, then its pod is played here, each
 * container in turn (init containers first) as {@code /usr/bin/kubectl ARGS} against the simulated
 * API server with the cluster's kubeconfig (that server accepts any token, so the hook's
 * ServiceAccount and RBAC are created but not enforced). Only kubectl-image containers are played;
 * configMap volumes are written to a directory and the args' mount paths pointed at it.
 */
public final class SimulatedHelm implements AutoCloseable {

    static final Path KUBECTL = Path.of("/usr/bin/kubectl");
    private static final long HOOK_TIMEOUT_S = 600;

    private final KubernetesClient client;
    private final Path kubeconfig;
    private final Path workDir;
    private final Consumer<String> events;

    /**
     * @param kubeconfig what Helm and the hook Jobs' kubectl reach the simulated API server with:
     *     its front, which applies patches as kube-apiserver does (the mock's own merge patch
     *     appends to lists)
     */
    public SimulatedHelm(Path kubeconfig, Path workDir, Consumer<String> events)
            throws IOException {
        this.client =
                new KubernetesClientBuilder()
                        .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                        .build();
        this.kubeconfig = kubeconfig;
        this.workDir = workDir;
        this.events = events;
    }

    public SimulatedHelm(SimulatedCluster cluster, Path workDir, Consumer<String> events)
            throws IOException {
        this(cluster.api().kubeconfig(), workDir, events);
    }

    @Override
    public void close() {
        client.close();
    }

    /** helm install: pre-install hooks, then the release's objects in Helm's install order. */
    public void install(String rendered) throws Exception {
        List<Manifest> objects = HelmSequence.parse(rendered);
        runHooks(objects, "pre-install");
        for (Manifest m : HelmSequence.release(objects)) {
            apply(m, null);
            events.accept("helm install: applied " + m.key());
        }
    }

    /**
     * helm upgrade from the release {@code oldRendered} to {@code newRendered} (each a chart's
     * output with hooks, {@link ChartInstall#renderWithHooks}): the new chart's pre-upgrade hooks,
     * then its release objects applied, then what the new release no longer renders deleted.
     */
    public void upgrade(String oldRendered, String newRendered) throws Exception {
        List<Manifest> next = HelmSequence.parse(newRendered);
        runHooks(next, "pre-upgrade");
        Map<String, Manifest> previous = new HashMap<>();
        HelmSequence.parse(oldRendered).forEach(m -> previous.put(m.key(), m));
        for (Manifest m : HelmSequence.release(next)) {
            apply(m, previous.get(m.key()));
            events.accept("helm upgrade: applied " + m.key());
        }
        for (Manifest m :
                HelmSequence.removedByUpgrade(
                        HelmSequence.parse(oldRendered), HelmSequence.release(next))) {
            delete(m);
            events.accept("helm upgrade: deleted " + m.key() + " (no longer rendered)");
        }
    }

    /** helm uninstall: the pre-delete hooks, then the release's objects deleted in Helm's order. */
    public void uninstall(String rendered) throws Exception {
        List<Manifest> objects = HelmSequence.parse(rendered);
        runHooks(objects, "pre-delete");
        for (Manifest m : HelmSequence.uninstall(HelmSequence.release(objects))) {
            delete(m);
            events.accept("helm uninstall: deleted " + m.key());
        }
    }

    private void runHooks(List<Manifest> rendered, String event) throws Exception {
        List<Manifest> hooks = HelmSequence.hooks(rendered, event);
        for (Manifest h : hooks) {
            if (h.deletePolicies().contains("before-hook-creation")) {
                delete(h);
            }
            apply(h, null);
            events.accept(event + " hook: created " + h.key());
            if (h.kind().equals("Job")) {
                runJob(h);
            }
        }
        for (Manifest h : hooks) {
            if (h.deletePolicies().contains("hook-succeeded")) {
                delete(h);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void runJob(Manifest job) throws Exception {
        Map<String, Object> pod =
                (Map<String, Object>)
                        ((Map<String, Object>)
                                        ((Map<String, Object>) job.object().get("spec"))
                                                .get("template"))
                                .get("spec");
        Path dir = Files.createTempDirectory(workDir, "hook-" + job.name() + "-");
        Map<String, Path> volumes = new HashMap<>();
        for (Map<String, Object> v :
                (List<Map<String, Object>>) pod.getOrDefault("volumes", List.of())) {
            Map<String, Object> cm = (Map<String, Object>) v.get("configMap");
            if (cm == null) {
                throw new IllegalArgumentException(
                        job.key()
                                + ": volume "
                                + v.get("name")
                                + ": only configMap volumes are played");
            }
            ConfigMap data =
                    client.configMaps()
                            .inNamespace(job.namespace())
                            .withName((String) cm.get("name"))
                            .get();
            if (data == null) {
                throw new IllegalStateException(
                        job.key()
                                + ": volume "
                                + v.get("name")
                                + ": no ConfigMap "
                                + cm.get("name"));
            }
            Path vdir = Files.createDirectories(dir.resolve((String) v.get("name")));
            for (var e : data.getData().entrySet()) {
                Files.writeString(vdir.resolve(e.getKey()), e.getValue());
            }
            volumes.put((String) v.get("name"), vdir);
        }
        List<Map<String, Object>> containers = new ArrayList<>();
        containers.addAll(
                (List<Map<String, Object>>) pod.getOrDefault("initContainers", List.of()));
        containers.addAll((List<Map<String, Object>>) pod.get("containers"));
        for (Map<String, Object> c : containers) {
            String image = String.valueOf(c.get("image"));
            if (!image.contains("/kubectl:") || c.get("command") != null) {
                throw new IllegalArgumentException(
                        job.key()
                                + ": container "
                                + c.get("name")
                                + ": image "
                                + image
                                + ": only kubectl images run with args are played here");
            }
            List<String> args = new ArrayList<>();
            for (Object a : (List<Object>) c.getOrDefault("args", List.of())) {
                args.add(mounted(String.valueOf(a), c, volumes));
            }
            List<String> command = new ArrayList<>();
            command.add(KUBECTL.toString());
            command.add("--kubeconfig=" + kubeconfig);
            command.addAll(args);
            Path log = Files.createTempFile(dir, c.get("name") + "-", ".log");
            Process p =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile())
                            .start();
            if (!p.waitFor(HOOK_TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(
                        job.key()
                                + ": kubectl "
                                + args
                                + " still running after "
                                + HOOK_TIMEOUT_S
                                + " s: "
                                + Files.readString(log).strip());
            }
            String output = Files.readString(log).strip();
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        job.key()
                                + ": container "
                                + c.get("name")
                                + ": kubectl "
                                + args
                                + " exited "
                                + p.exitValue()
                                + ": "
                                + output);
            }
            events.accept(
                    "hook "
                            + job.key()
                            + ": container "
                            + c.get("name")
                            + ": kubectl "
                            + String.join(" ", (List<String>) c.get("args"))
                            + " -> "
                            + output.replace('\n', ';'));
        }
    }

    /** An arg under a volume's mount path, pointed at the directory that volume was written to. */
    @SuppressWarnings("unchecked")
    private static String mounted(
            String arg, Map<String, Object> container, Map<String, Path> volumes) {
        for (Map<String, Object> m :
                (List<Map<String, Object>>) container.getOrDefault("volumeMounts", List.of())) {
            String path = (String) m.get("mountPath");
            Path dir = volumes.get((String) m.get("name"));
            if (dir != null && (arg.equals(path) || arg.startsWith(path + "/"))) {
                return dir + arg.substring(path.length());
            }
        }
        return arg;
    }

    /**
     * Creates an object, or changes the one there as Helm's upgrade changes a custom resource: by
     * the merge patch from its {@code previous} manifest (the old release's; null: the whole
     * manifest) to this one, so what others wrote there (finalizers, status, fields the chart never
     * set) stays, and an unchanged manifest changes nothing.
     */
    private void apply(Manifest m, Manifest previous) {
        Map<String, Object> patch =
                previous == null
                        ? m.object()
                        : HelmSequence.mergePatch(previous.object(), m.object());
        PatchContext merge = PatchContext.of(PatchType.JSON_MERGE);
        if (m.kind().equals("ClusterPolicy")) {
            var policies = client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES);
            if (policies.withName(m.name()).get() == null) {
                policies.resource(generic(m)).create();
            } else if (!patch.isEmpty()) {
                policies.withName(m.name()).patch(merge, Serialization.asJson(patch));
            }
        } else {
            var r = client.resource(typed(m));
            if (r.get() == null) {
                r.create();
            } else if (!patch.isEmpty()) {
                r.patch(merge, Serialization.asJson(patch));
            }
        }
    }

    /** Deletes and waits until it is gone (finalizers done), as helm does for hooks it replaces. */
    private void delete(Manifest m) {
        if (m.kind().equals("ClusterPolicy")) {
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(generic(m))
                    .withTimeout(HOOK_TIMEOUT_S, TimeUnit.SECONDS)
                    .delete();
        } else {
            client.resource(typed(m)).withTimeout(HOOK_TIMEOUT_S, TimeUnit.SECONDS).delete();
        }
    }

    private static HasMetadata typed(Manifest m) {
        return Serialization.unmarshal(Serialization.asJson(m.object()));
    }

    private static GenericKubernetesResource generic(Manifest m) {
        return Serialization.unmarshal(
                Serialization.asJson(m.object()), GenericKubernetesResource.class);
    }
}
