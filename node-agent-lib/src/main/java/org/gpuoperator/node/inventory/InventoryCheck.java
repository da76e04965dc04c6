package org.gpuoperator.node.inventory;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.gpuoperator.node.agent.VersionProvider;
import org.gpuoperator.node.inventory.nvml.NvmlGpuInventory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The real-GPU check: prints the node's GPU inventory, one metrics sample and the processes of each
 * GPU, read through the same interface every agent uses. Exit 0 when everything was read, 1 when
 * the source could not be opened or a sample failed (the error is one line).
 */
@Command(
        name = "inventory-check",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Print this node's GPUs (NVML or simulated) and one metrics sample per GPU.")
public final class InventoryCheck implements Callable<Integer> {

    @Mixin GpuSourceOptions source;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        GpuInventory inventory;
        try {
            inventory = source.open();
        } catch (GpuSourceException | IllegalArgumentException e) {
            err.println("inventory-check: " + e.getMessage());
            err.flush();
            return 1;
        }
        int failures = 0;
        try (inventory) {
            String where =
                    inventory instanceof NvmlGpuInventory n
                            ? inventory.describe() + " (" + n.libraryLocation() + ")"
                            : inventory.describe();
            out.print(
                    InventoryReport.describe(
                            where, inventory.node(), inventory.gpus(), inventory.links()));
            List<String> lines = new ArrayList<>();
            long start = System.nanoTime();
            for (Gpu g : inventory.gpus()) {
                try {
                    lines.add(InventoryReport.sampleLine(inventory.sample(g.index())));
                } catch (GpuSourceException e) {
                    lines.add("sample gpu " + g.index() + ": error: " + e.getMessage());
                    failures++;
                }
            }
            long micros = (System.nanoTime() - start) / 1_000;
            lines.forEach(out::println);
            out.println("sampled " + inventory.gpus().size() + " GPUs in " + micros + " us");
            for (Gpu g : inventory.gpus()) {
                try {
                    out.println(
                            InventoryReport.processesLine(
                                    g.index(), inventory.processes(g.index())));
                } catch (GpuSourceException e) {
                    out.println("processes gpu " + g.index() + ": error: " + e.getMessage());
                }
            }
            out.println(profilingLine(inventory));
        }
        out.flush();
        return failures == 0 ? 0 : 1;
    }

    /**
     * Which GPUs report the profiling metrics (NVML GPM), e.g. {@code profiling (GPM): 0,1 of 2}.
     */
    static String profilingLine(GpuInventory inventory) {
        List<String> with =
                inventory.gpus().stream()
                        .filter(g -> inventory.profilingSupported(g.index()))
                        .map(g -> Integer.toString(g.index()))
                        .toList();
        return "profiling (GPM): "
                + (with.isEmpty() ? "none" : String.join(",", with))
                + " of "
                + inventory.gpus().size()
                + " GPUs";
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new InventoryCheck()).execute(args));
    }
}
