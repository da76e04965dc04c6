package org.gpuoperator.e2e.images;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuoperator.e2e.simulate.RepoRoot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code e2e-tests images}: every component's local OCI image archive, and the busybox sandbox
 * image.
 */
@Command(
        name = "images",
        mixinStandardHelpOptions = true,
        description =
                "Build each component's OCI image archive (ctr images import) from the built jars; reuses unchanged ones.")
public final class ImagesCommand implements Callable<Integer> {

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Where the archives go (default <repo>/e2e-tests/target/images).")
    Path out;

    @Option(
            names = "--repo",
            paramLabel = "DIR",
            description = "Repository root (default: found from the working directory).")
    Path repo;

    @Override
    public Integer call() throws Exception {
        Path root = repo != null ? repo : RepoRoot.find();
        Path dir = out != null ? out : LocalImages.defaultOutDir(root);
        long start = System.nanoTime();
        Map<String, LocalImages.LocalImage> built = new LocalImages(root, dir).buildAll();
        for (LocalImages.LocalImage i : built.values()) {
            System.out.printf(
                    "%-20s %-52s %6.1f MiB  %s%n",
                    i.name(),
                    i.reference(),
                    i.size() / 1048576.0,
                    (i.reused() ? "reused " : "built  ")
                            + root.relativize(i.archive().toAbsolutePath()));
        }
        System.out.printf(
                "%d images in %s in %.1f s%n",
                built.size(), dir, (System.nanoTime() - start) / 1e9);
        return 0;
    }
}
