package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
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
            names = "--namespace",
            defaultValue = "${env:OPERATOR_NAMESPACE:-gpu-operator}",
            description = "Operator namespace. Default: ${DEFAULT-VALUE}")
    String namespace;

    @Spec CommandLine.Model.CommandSpec spec;

    /** The cluster as the planner needs it: the nodes, their pods, the active policy if any. */
    public record ClusterView(
            List<Node> nodes, List<Pod> pods, Optional<ClusterPolicySpec> active) {}

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
        List<String> warnings =
                next.warnings().stream().map(w -> w.getPath() + ": " + w.getMessage()).toList();
        String text = plan(readPolicy(policy), warnings, currentSpec, cluster, namespace).text();
        PrintWriter out = spec.commandLine().getOut();
        out.print(text);
        out.flush();
        return 0;
    }

    /** Reads the nodes, all pods and the active ClusterPolicy; writes nothing. */
    public static ClusterView read(KubernetesClient client) {
        List<ClusterPolicy> policies = client.resources(ClusterPolicy.class).list().getItems();
        return new ClusterView(
                client.nodes().list().getItems(),
                client.pods().inAnyNamespace().list().getItems(),
                ClusterPolicyReconciler.activeOf(policies)
                        .map(p -> p.getSpec() == null ? new ClusterPolicySpec() : p.getSpec()));
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
        Map<String, String> env = System.getenv();
        return RolloutPlanner.plan(
                new RolloutPlanner.Input(
                        currentSpec.map(
                                s -> side("the current policy", s, cluster, namespace, env)),
                        side("the new policy", next, cluster, namespace, env),
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
            Map<String, String> env) {
        RenderedPolicy r = RenderedPolicy.of(spec, cluster.nodes(), namespace, env);
        if (!r.errors().isEmpty()) {
            throw new IllegalArgumentException(
                    what + " cannot be rendered: " + String.join("; ", r.errors()));
        }
        return new RolloutPlanner.Side(spec, r.settings(), r.desired());
    }

    private static ClusterPolicySpec readPolicy(Path file) {
        PolicyFiles.Read read = PolicyFiles.readPolicy(file);
        if (!read.errors().isEmpty()) {
            throw new IllegalArgumentException(file + ": " + String.join("; ", read.errors()));
        }
        return read.spec();
    }
}
