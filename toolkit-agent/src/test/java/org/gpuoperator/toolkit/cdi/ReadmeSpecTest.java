package org.gpuoperator.toolkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's generated spec for {@code h100-80gb-x8} is what the agent writes on a simulated node
 * with the simulated driver container (on a difference, the current text is in {@code
 * target/readme-cdi-spec-h100-80gb-x8.yaml} to paste).
 */
class ReadmeSpecTest {

    static final String BEGIN = "<!-- generated-cdi-spec:h100-80gb-x8 -->\n```yaml\n";
    static final String END = "```\n<!-- /generated-cdi-spec -->";

    @TempDir Path host;

    @Test
    void readmeShowsTheSpecGeneratedForH100x8() throws Exception {
        CdiSpecFilesTest.simulatedDriver(host, "550.54.15", 8);
        CdiSpecFiles files = new CdiSpecFiles(host, CdiSpecFiles.DEFAULT_PATH);
        String spec =
                files.render(
                                CdiSpecFilesTest.gpus("h100-80gb-x8", host),
                                files.discover(CdiSpecFilesTest.DRIVER_ROOT, "550.54.15"),
                                CdiSpecFilesTest.HOOK)
                        .get(CdiSpecFiles.DEFAULT_PATH);
        Files.writeString(Path.of("target/readme-cdi-spec-h100-80gb-x8.yaml"), spec);
        String readme = Files.readString(Path.of("README.md"));
        int from = readme.indexOf(BEGIN);
        int to = readme.indexOf(END);
        assertThat(from).as("README marker " + BEGIN.strip()).isNotNegative();
        assertThat(readme.substring(from + BEGIN.length(), to)).isEqualTo(spec);
    }
}
