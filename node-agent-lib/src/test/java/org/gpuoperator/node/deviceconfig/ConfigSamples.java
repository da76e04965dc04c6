package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Sample config files (test resources, shipped in this module's test-jar) that every agent reading
 * the device plugin's config runs through its own loading path: {@code accepted-*} must load,
 * {@code refused-*} must fail with an error naming the file and what its first line ({@code #
 * refused: <what>}) says.
 */
public final class ConfigSamples {

    private static final String DIR = "/deviceconfig-samples";
    private static List<Sample> all;

    private ConfigSamples() {}

    public record Sample(Path file, String refusedAt) {

        public boolean accepted() {
            return refusedAt == null;
        }

        /**
         * Asserts that {@code load}, an agent's loading path for this file, accepts or refuses it
         * as expected.
         */
        public void check(ThrowingCallable load) {
            if (accepted()) {
                assertThatCode(load).as(file.toString()).doesNotThrowAnyException();
            } else {
                assertThatThrownBy(load)
                        .as(file.toString())
                        .isInstanceOf(ConfigException.class)
                        .hasMessageStartingWith(file + ": " + refusedAt);
            }
        }

        @Override
        public String toString() {
            return file.getFileName().toString();
        }
    }

    /** Every sample, by name. */
    public static synchronized List<Sample> all() throws IOException {
        if (all == null) {
            try (Stream<Path> files = Files.list(directory())) {
                all = files.sorted().map(ConfigSamples::sample).toList();
            }
        }
        return all;
    }

    private static Sample sample(Path file) {
        String name = file.getFileName().toString();
        if (name.startsWith("accepted-")) {
            return new Sample(file, null);
        }
        try (Stream<String> lines = Files.lines(file)) {
            String first = lines.findFirst().orElse("");
            if (!name.startsWith("refused-") || !first.startsWith("# refused: ")) {
                throw new IllegalStateException(
                        file + ": expected accepted-* or refused-* starting '# refused: '");
            }
            return new Sample(file, first.substring("# refused: ".length()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The samples' folder: a directory when run in this module, a folder of the test-jar elsewhere.
     */
    private static Path directory() throws IOException {
        try {
            URI uri = ConfigSamples.class.getResource(DIR).toURI();
            if (uri.getScheme().equals("jar")) {
                return FileSystems.newFileSystem(uri, Map.of()).getPath(DIR);
            }
            return Path.of(uri);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
