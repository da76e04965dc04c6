package org.gpuoperator.driver.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The driver packages a driver image carries ({@code <install-root>/usr/src/nvidia-<version>}), and
 * whether the wanted version is among them: the version comes from the policy, the image may carry
 * another.
 */
public final class DriverPackages {

    private static final String PREFIX = "nvidia-";

    private DriverPackages() {}

    /** The versions of the packages under {@code <installRoot>/usr/src}, sorted. */
    public static List<String> available(Path installRoot) {
        Path src = installRoot.resolve("usr/src");
        if (!Files.isDirectory(src)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(src)) {
            return s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .filter(n -> n.matches(PREFIX + "\\d+(\\.\\d+)+"))
                    .map(n -> n.substring(PREFIX.length()))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Why {@code config} cannot install a driver from this image, or empty when its package (or
     * installed modules under {@code <install-root>/lib/modules}) is there.
     */
    public static Optional<String> problem(DriverConfig config) {
        String have = describe(available(config.installRoot()));
        if (config.driverVersion().isBlank()) {
            return Optional.of(
                    "no driver version: set --driver-version or DRIVER_VERSION (the policy's"
                            + " driver.version) (have: "
                            + have
                            + ")");
        }
        if (Files.isDirectory(config.packageDir())
                || Files.isDirectory(config.installRoot().resolve("lib/modules"))) {
            return Optional.empty();
        }
        return Optional.of(
                "no driver package for version "
                        + config.driverVersion()
                        + " in the image (have: "
                        + have
                        + "); expected "
                        + config.packageDir());
    }

    /** The one version an image carries, used when none is set; empty with none or several. */
    public static Optional<String> onlyVersion(Path installRoot) {
        List<String> all = available(installRoot);
        return all.size() == 1 ? Optional.of(all.getFirst()) : Optional.empty();
    }

    private static String describe(List<String> versions) {
        return versions.isEmpty() ? "none" : String.join(", ", versions);
    }
}
