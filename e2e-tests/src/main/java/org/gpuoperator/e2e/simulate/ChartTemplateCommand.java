package org.gpuoperator.e2e.simulate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Renders the chart as simulate installs it and prints it: the child process in which {@link
 * ChartInstall#renderApart} runs Helm (hidden: not for users).
 */
@Command(name = "chart-template", hidden = true)
public final class ChartTemplateCommand implements Callable<Integer> {

    @Option(names = "--chart", required = true)
    Path chart;

    @Option(names = "--profile", required = true)
    String profile;

    @Option(names = {"-f", "--values"})
    List<Path> valuesFiles = new ArrayList<>();

    @Option(names = "--set")
    List<String> sets = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        try {
            String out =
                    new ChartInstall(chart, valuesFiles, sets)
                            .render(profile, Path.of(System.getProperty("java.io.tmpdir")));
            System.out.print(out);
            System.out.flush();
            return 0;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
    }
}
