package org.gpuoperator.api.crd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the tests find the committed and generated files; Surefire runs in the module directory.
 */
public final class ModuleFiles {
    /** CRDs the build generates (crd-generator-maven-plugin, process-classes). */
    public static final Path GENERATED_CRDS = Path.of("target", "classes", "META-INF", "fabric8");

    /** CRDs committed for users to {@code kubectl apply}. */
    public static final Path COMMITTED_CRDS = Path.of("..", "deploy", "crds");

    public static final Path SAMPLES = Path.of("..", "deploy", "samples");
    public static final Path TEST_POLICIES = Path.of("src", "test", "resources", "policies");

    private ModuleFiles() {}

    public static List<Path> yamlFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches(".*\\.ya?ml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Upstream's own policies, kept as data (deploy/samples/upstream). */
    public static final Path UPSTREAM_SAMPLES = SAMPLES.resolve("upstream");

    /** Every sample, upstream's, and every upstream-style test resource. */
    public static List<Path> allExamples() {
        return Stream.of(SAMPLES, UPSTREAM_SAMPLES, TEST_POLICIES)
                .flatMap(d -> yamlFiles(d).stream())
                .toList();
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
