package org.gpuoperator.e2e.simulate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.e2e.node.PodSpecMapping;

/**
 * Finds the repository the simulated cluster runs from: agent jars, CRDs, samples and image JVM
 * flags.
 */
public final class RepoRoot {

    private RepoRoot() {}

    /**
     * The nearest directory at or above the working directory that holds
     * images/versions.properties.
     */
    public static Path find() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            if (Files.isRegularFile(p.resolve("images/versions.properties"))
                    && Files.isDirectory(p.resolve("deploy"))) {
                return p;
            }
            p = p.getParent();
        }
        throw new IllegalStateException(
                "not inside the repository: no images/versions.properties above "
                        + Path.of("").toAbsolutePath()
                        + " (use --repo DIR)");
    }

    /** Agents whose jar has not been built. */
    public static List<String> missingJars(Path root) {
        List<String> missing = new ArrayList<>();
        PodSpecMapping m = new PodSpecMapping(root, "java");
        for (String module : PodSpecMapping.MODULES.stream().sorted().toList()) {
            if (!Files.isRegularFile(m.jarOf(module))) {
                missing.add(module);
            }
        }
        return missing;
    }
}
