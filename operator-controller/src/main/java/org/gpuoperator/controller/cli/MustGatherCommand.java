package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.gpuoperator.controller.mustgather.Bundle;
import org.gpuoperator.controller.mustgather.ClusterReader;
import org.gpuoperator.controller.mustgather.Fabric8ClusterReader;
import org.gpuoperator.controller.mustgather.MustGather;
import org.gpuoperator.controller.mustgather.TarGz;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code operator-controller must-gather}: the support bundle, one tar.gz, read from the cluster
 * (KUBECONFIG or in-cluster). Changes nothing; never writes Secret data.
 */
@Command(
        name = "must-gather",
        mixinStandardHelpOptions = true,
        description =
                "Collect into one tar.gz archive what support needs: the ClusterPolicies and their"
                        + " status, the NVIDIADrivers, the operand DaemonSets and pods with their"
                        + " logs (previous containers too), the GPU nodes' labels, conditions and"
                        + " allocatable, the events and the controller's metrics. Secrets are"
                        + " redacted. An item that cannot be read is listed with its error in"
                        + " index.yaml; the rest is still collected.")
public final class MustGatherCommand implements Callable<Integer> {

    @Option(
            names = "--output",
            paramLabel = "FILE",
            description = "the archive to write (default: must-gather-<UTC timestamp>.tar.gz here)")
    Path output;

    @Option(
            names = "--namespace",
            defaultValue = "${env:OPERATOR_NAMESPACE:-gpu-operator}",
            description = "Operator namespace. Default: ${DEFAULT-VALUE}")
    String namespace;

    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            return gather(new Fabric8ClusterReader(client), Instant.now());
        }
    }

    /** Collects through the reader, writes the archive, prints a summary and each error. */
    int gather(ClusterReader reader, Instant now) throws IOException {
        Bundle bundle = MustGather.collect(reader, namespace, now);
        Path file = output != null ? output : Path.of(MustGather.rootName(now) + ".tar.gz");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            TarGz.write(bundle, now, out);
        }
        PrintWriter err = spec.commandLine().getErr();
        bundle.errors().forEach(e -> err.println("warning: " + e.item() + ": " + e.error()));
        err.flush();
        PrintWriter out = spec.commandLine().getOut();
        out.println(
                "wrote "
                        + file
                        + ": "
                        + bundle.files().size()
                        + " files, "
                        + bundle.errors().size()
                        + " items not collected (listed in "
                        + bundle.root()
                        + "/"
                        + Bundle.INDEX
                        + ")");
        out.flush();
        return 0;
    }
}
