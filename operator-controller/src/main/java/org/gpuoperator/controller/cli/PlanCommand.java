package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.controller.matrix.VersionMatrix;
import org.gpuoperator.controller.plan.RolloutPlan;
import org.gpuoperator.controller.plan.RolloutPlanner;
import org.gpuoperator.controller.reconcile.ClusterPolicyReconciler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code operator-controller plan}: what a new policy would restart, unload, evict and in which
 * batches, against the cluster (read only) or a nodes file. Changes nothing.
 */
@Command(
        name = "plan",
        mixinStandardHelpOptions = true,
        description =
                "Show what a new ClusterPolicy would do before it is applied: the operand pods that"
                        + " restart, whether the driver unloads, the GPU pods evicted, the driver"
                        + " upgrade batches, and the version matrix warnings. Changes nothing.")
public final class PlanCommand implements Callable<Integer> {

    @Option(names = "--policy", required = true, description = "the new ClusterPolicy YAML file")
    Path policy;

    @Option(
            names = "--nodes",
            description =
                    "YAML/JSON file of Nodes, and optionally their Pods (a list, a v1 List or a"
                            + " multi-document stream); without it the cluster is read (KUBECONFIG"
                            + " or in-cluster), read only")
    Path nodes;

    @Option(
            names = "--current",
            description =
                    "the ClusterPolicy deployed now (default: the cluster's active ClusterPolicy;"
                            + " with --nodes and without it, pods are compared by their template"
                            + " hash)")
    Path current;

    @Option(
            names = "--nvidiadrivers",
            description =
                    "the NVIDIADrivers the new policy is to run with (a YAML list, a v1 List or a"
                            + " multi-document stream; default: the cluster's as they are)")
    Path nvidiaDrivers;

    @Option(
            names = "--current-nvidiadrivers",
            description =
                    "the NVIDIADrivers deployed now (default: the cluster's; with --nodes: those"
                            + " of --nvidiadrivers, i.e. unchanged)")
    Path currentNvidiaDrivers;

    @Option(
            names = "--namespace",
            defaultValue = "${env:OPERATOR_NAMESPACE:-gpu-operator}",
            description = "Operator namespace. Default: ${DEFAULT-VALUE}")
    String namespace;

    @Spec CommandLine.Model.CommandSpec spec;

    /**
     * The cluster as the planner needs it: the nodes, their pods, the active policy if any, the
     * NVIDIADrivers (none where their CRD is not installed).
     */
    public record ClusterView(
            List<Node> nodes,
            List<Pod> pods,
            Optional<ClusterPolicySpec> active,
            List<NVIDIADriver> nvidiaDrivers) {

        public ClusterView(List<Node> nodes, List<Pod> pods, Optional<ClusterPolicySpec> active) {
            this(nodes, pods, active, List.of());
        }
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        RenderedPolicy next = RenderedPolicy.load(policy, null, namespace, System.getenv());
        if (!next.errors().isEmpty()) {
            next.errors().forEach(e -> err.println("error: " + policy + ": " + e));
            err.flush();
            return 1;
        }
        ClusterView cluster;
        if (nodes != null) {
            List<HasMetadata> objects = PolicyFiles.readObjects(nodes, Set.of("Node", "Pod"));
            cluster =
                    new ClusterView(
                            objects.stream()
                                    .filter(Node.class::isInstance)
                                    .map(Node.class::cast)
                                    .toList(),
                            objects.stream()
                                    .filter(Pod.class::isInstance)
                                    .map(Pod.class::cast)
                                    .toList(),
                            Optional.empty());
        } else {
            try (KubernetesClient client = new KubernetesClientBuilder().build()) {
                cluster = read(client);
            }
        }
        Optional<ClusterPolicySpec> currentSpec =
                current != null ? Optional.of(readPolicy(current)) : cluster.active();
        Optional<List<NVIDIADriver>> nextDrivers =
                nvidiaDrivers != null
                        ? Optional.of(PolicyFiles.readNvidiaDrivers(nvidiaDrivers))
                        : nodes == null ? Optional.of(cluster.nvidiaDrivers()) : Optional.empty();
        Optional<List<NVIDIADriver>> currentDrivers =
                currentNvidiaDrivers != null
                        ? Optional.of(PolicyFiles.readNvidiaDrivers(currentNvidiaDrivers))
                        : nodes == null ? Optional.of(cluster.nvidiaDrivers()) : nextDrivers;
        ClusterPolicySpec nextSpec = readPolicy(policy);
        if (next.warnings().stream()
                .anyMatch(w -> w.getPath().equals("spec.driver.useNvidiaDriverCRD"))) {
            // NVIDIADriver mode (or NVIDIADrivers given): the warnings of the NVIDIADrivers too
            next =
                    RenderedPolicy.of(
                            nextSpec, cluster.nodes(), namespace, System.getenv(), nextDrivers);
        }
        List<String> warnings =
                next.warnings().stream().map(w -> w.getPath() + ": " + w.getMessage()).toList();
        String text =
                plan(
                                nextSpec,
                                warnings,
                                currentSpec,
                                cluster,
                                namespace,
                                nextDrivers,
                                currentDrivers)
                        .text();
        PrintWriter out = spec.commandLine().getOut();
        out.print(text);
        out.flush();
        return 0;
    }

    /**
     * Reads the nodes, all pods, the active ClusterPolicy and the NVIDIADrivers (none when their
     * CRD is not installed); writes nothing.
     */
    public static ClusterView read(KubernetesClient client) {
        List<ClusterPolicy> policies = client.resources(ClusterPolicy.class).list().getItems();
        List<NVIDIADriver> drivers;
        try {
            drivers = client.resources(NVIDIADriver.class).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404) {
                throw e;
            }
            drivers = List.of();
        }
        return new ClusterView(
                client.nodes().list().getItems(),
                client.pods().inAnyNamespace().list().getItems(),
                ClusterPolicyReconciler.activeOf(policies)
                        .map(p -> p.getSpec() == null ? new ClusterPolicySpec() : p.getSpec()),
                drivers);
    }

    /**
     * @param next the new policy's spec, already validated
     * @param warnings the new policy's warnings, one line each
     */
    static RolloutPlan plan(
            ClusterPolicySpec next,
            List<String> warnings,
            Optional<ClusterPolicySpec> currentSpec,
            ClusterView cluster,
            String namespace) {
        return plan(
                next,
                warnings,
                currentSpec,
                cluster,
                namespace,
                Optional.of(cluster.nvidiaDrivers()),
                Optional.of(cluster.nvidiaDrivers()));
    }

    /**
     * @param nextDrivers the NVIDIADrivers the new policy runs with (empty: not known)
     * @param currentDrivers those deployed now (empty: not known)
     */
    static RolloutPlan plan(
            ClusterPolicySpec next,
            List<String> warnings,
            Optional<ClusterPolicySpec> currentSpec,
            ClusterView cluster,
            String namespace,
            Optional<List<NVIDIADriver>> nextDrivers,
            Optional<List<NVIDIADriver>> currentDrivers) {
        Map<String, String> env = System.getenv();
        return RolloutPlanner.plan(
                new RolloutPlanner.Input(
                        currentSpec.map(
                                s ->
                                        side(
                                                "the current policy",
                                                s,
                                                cluster,
                                                namespace,
                                                env,
                                                currentDrivers)),
                        side("the new policy", next, cluster, namespace, env, nextDrivers),
                        cluster.nodes(),
                        cluster.pods(),
                        VersionMatrix.load(),
                        warnings,
                        PlanCommand.class.getPackage().getImplementationVersion()));
    }

    /** The policy rendered for the nodes, as the reconcile would. */
    private static RolloutPlanner.Side side(
            String what,
            ClusterPolicySpec spec,
            ClusterView cluster,
            String namespace,
            Map<String, String> env,
            Optional<List<NVIDIADriver>> drivers) {
        RenderedPolicy r = RenderedPolicy.of(spec, cluster.nodes(), namespace, env, drivers);
        if (!r.errors().isEmpty()) {
            throw new IllegalArgumentException(
                    what + " cannot be rendered: " + String.join("; ", r.errors()));
        }
        return new RolloutPlanner.Side(spec, r.settings(), r.desired(), r.driverPools());
    }

    private static ClusterPolicySpec readPolicy(Path file) {
        PolicyFiles.Read read = PolicyFiles.readPolicy(file);
        if (!read.errors().isEmpty()) {
            throw new IllegalArgumentException(file + ": " + String.join("; ", read.errors()));
        }
        return read.spec();
    }
}
