package org.gpuoperator.controller;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.gpuoperator.controller.cli.MustGatherCommand;
import org.gpuoperator.controller.cli.PlanCommand;
import org.gpuoperator.controller.cli.PrivilegeAudit;
import org.gpuoperator.controller.cli.RenderedPolicy;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.controller.reconcile.ControllerSerialization;
import org.gpuoperator.node.agent.HostPort;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code operator-controller}: with no subcommand, runs the controller against the configured
 * cluster (KUBECONFIG or in-cluster); {@code render} and {@code audit} are one-shot, offline;
 * {@code plan} reads the cluster (or a nodes file) and changes nothing; {@code must-gather} reads
 * the cluster into a support bundle.
 */
@Command(
        name = "operator-controller",
        mixinStandardHelpOptions = true,
        versionProvider = ControllerMain.Version.class,
        description = "Reconciles ClusterPolicy into ready GPU nodes.",
        subcommands = {
            ControllerMain.Render.class,
            ControllerMain.Audit.class,
            PlanCommand.class,
            MustGatherCommand.class
        })
public final class ControllerMain implements java.util.concurrent.Callable<Integer> {

    @Option(
            names = "--namespace",
            defaultValue = "${env:OPERATOR_NAMESPACE:-gpu-operator}",
            description =
                    "Namespace of the operands and the leader Lease (env OPERATOR_NAMESPACE). Default: ${DEFAULT-VALUE}")
    String namespace;

    @Option(
            names = "--leader-elect",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Take the Lease "
                            + ControllerRuntime.LEASE_NAME
                            + " before reconciling. Default: ${DEFAULT-VALUE}")
    boolean leaderElect;

    @Option(
            names = "--metrics-bind-address",
            defaultValue = "${env:METRICS_ADDRESS:-:8080}",
            description = "host:port of /metrics. Default: ${DEFAULT-VALUE}")
    String metricsAddress;

    @Option(
            names = "--health-probe-bind-address",
            defaultValue = "${env:HEALTH_ADDRESS:-:8081}",
            description = "host:port of /healthz and /readyz. Default: ${DEFAULT-VALUE}")
    String healthAddress;

    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        KubernetesClient client = ControllerSerialization.clientBuilder().build();
        ControllerRuntime runtime =
                ControllerRuntime.start(
                        client,
                        new ControllerRuntime.Config(
                                namespace,
                                leaderElect,
                                address("--metrics-bind-address", metricsAddress),
                                address("--health-probe-bind-address", healthAddress),
                                System.getenv()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    runtime.close();
                                    client.close();
                                    stopped.countDown();
                                },
                                "shutdown"));
        System.out.println("event=started namespace=" + namespace + " leader_elect=" + leaderElect);
        stopped.await();
        return 0;
    }

    /** {@code host:port} or {@code :port} (every interface), parsed as every agent parses it. */
    static InetSocketAddress address(String option, String value) {
        try {
            return HostPort.parse(value).socketAddress();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }

    /** Prints every object a policy would create, through the reconcile's own rendering. */
    @Command(
            name = "render",
            mixinStandardHelpOptions = true,
            versionProvider = ControllerMain.Version.class,
            description =
                    "Print as YAML every object the ClusterPolicy would create, and the first node labels.")
    static final class Render implements java.util.concurrent.Callable<Integer> {
        @Option(names = "--policy", required = true, description = "ClusterPolicy YAML file")
        Path policy;

        @Option(
                names = "--nodes",
                description = "YAML list of Node objects (default: one GPU node)")
        Path nodes;

        @Option(
                names = "--nvidiadrivers",
                description =
                        "NVIDIADriver objects (a YAML list, a v1 List or a multi-document"
                                + " stream): with spec.driver.useNvidiaDriverCRD, each pool's"
                                + " driver DaemonSet as the controller renders it")
        Path nvidiaDrivers;

        @Option(
                names = "--namespace",
                defaultValue = "${env:OPERATOR_NAMESPACE:-gpu-operator}",
                description = "Operator namespace. Default: ${DEFAULT-VALUE}")
        String namespace;

        @Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            RenderedPolicy rendered =
                    RenderedPolicy.load(policy, nodes, nvidiaDrivers, namespace, System.getenv());
            PrintWriter err = spec.commandLine().getErr();
            // the same warnings the status would list: one per line, with the field's path
            rendered.warningLines().forEach(err::println);
            err.flush();
            if (!rendered.errors().isEmpty()) {
                rendered.errors().forEach(e -> err.println("error: " + policy + ": " + e));
                err.flush();
                return 1;
            }
            PrintWriter out = spec.commandLine().getOut();
            out.print(rendered.yaml());
            out.flush();
            return 0;
        }
    }

    /** Markdown list of host paths, privileges, capabilities and API permissions per operand. */
    @Command(
            name = "audit",
            mixinStandardHelpOptions = true,
            versionProvider = ControllerMain.Version.class,
            description =
                    "Print, per operand, each host path, privilege, capability and API permission it asks for.")
    static final class Audit implements java.util.concurrent.Callable<Integer> {
        @Option(
                names = "--policy",
                description = "ClusterPolicy YAML file (default: an empty spec, all defaults)")
        Path policy;

        @Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            RenderedPolicy rendered =
                    policy == null
                            ? RenderedPolicy.defaults()
                            : RenderedPolicy.load(policy, null, "gpu-operator", System.getenv());
            if (!rendered.errors().isEmpty()) {
                rendered.errors().forEach(e -> spec.commandLine().getErr().println("error: " + e));
                spec.commandLine().getErr().flush();
                return 1;
            }
            spec.commandLine()
                    .getOut()
                    .print(PrivilegeAudit.markdown(rendered.desired(), rendered.settings()));
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Bad input gives one line naming the problem, never a stack trace. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ControllerMain());
        cl.setExecutionExceptionHandler(
                (e, line, parsed) -> {
                    line.getErr()
                            .println(
                                    "error: "
                                            + (e.getMessage() == null
                                                    ? e.toString()
                                                    : e.getMessage()));
                    line.getErr().flush();
                    return 1;
                });
        return cl;
    }

    /** The version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Version.class.getPackage().getImplementationVersion();
            return new String[] {v == null ? "dev" : v};
        }
    }
}
