package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Discovery on this machine's root against NVIDIA's real files from Debian's {@code libnvidia-ml1}
 * ({@code .ci/run} installs it): every versioned library the package installs, as {@code dpkg -L}
 * lists it, is found. Skipped without the package.
 */
class RealDriverPackagesTest {

    static final String PACKAGE = "libnvidia-ml1";

    @Test
    void findsEveryVersionedLibraryTheDebianPackageInstalled() throws Exception {
        Path soname = Path.of("/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1");
        assumeTrue(Files.exists(soname), "Debian's " + PACKAGE + " is not installed");
        String file = soname.toRealPath().getFileName().toString();
        String version = file.substring("libnvidia-ml.so.".length());

        Process dpkg = new ProcessBuilder("dpkg", "-L", PACKAGE).redirectErrorStream(true).start();
        String listed = new String(dpkg.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(dpkg.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> expected =
                listed.lines()
                        .filter(l -> l.matches(".*/lib[^/]*\\.so\\." + version.replace(".", "\\.")))
                        .filter(l -> Files.isRegularFile(Path.of(l)))
                        .toList();
        assertThat(expected).as("dpkg -L %s:\n%s", PACKAGE, listed).isNotEmpty();

        DriverFiles found = new DriverDiscovery(new HostFs(Path.of("/"))).discover("/", version);

        assertThat(found.libraries()).containsAll(expected);
    }
}
