package org.gpuoperator.toolkit.install;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * What the simulated runtime's Java part needs on a node that has no Java: a Java runtime and the
 * agent's classpath.
 *
 * @param javaHome the Java runtime ({@code java.home}; a small jlink runtime in the image)
 * @param classpath jars (and, in tests, class directories) in classpath order
 */
public record RuntimePayload(Path javaHome, List<Path> classpath) {

    /**
     * Above this a Java home is a full JDK on a host, not the image's runtime: referenced in place,
     * not copied.
     */
    public static final long COPY_LIMIT_BYTES = 200L * 1024 * 1024;

    public RuntimePayload {
        classpath = List.copyOf(classpath);
    }

    /** Java homes measured in this process: a runtime does not change while a process runs. */
    private static final Map<Path, Long> MEASURED = new ConcurrentHashMap<>();

    /**
     * This JVM's runtime and classpath, with the manifest {@code Class-Path} of each jar (how the
     * agent jar runs); read once per process (every jar's manifest opened), as its Java home's size
     * is measured once.
     */
    public static RuntimePayload ofThisProcess() {
        return ThisProcess.PAYLOAD;
    }

    private static final class ThisProcess {
        static final RuntimePayload PAYLOAD = read();
    }

    private static RuntimePayload read() {
        Set<Path> entries = new LinkedHashSet<>();
        for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (!e.isBlank()) {
                addWithManifest(Path.of(e).toAbsolutePath().normalize(), entries);
            }
        }
        return new RuntimePayload(
                Path.of(System.getProperty("java.home")), new ArrayList<>(entries));
    }

    /**
     * A Java runtime and an application jar with its manifest {@code Class-Path} (the agent's
     * packaged layout).
     */
    public static RuntimePayload ofJar(Path javaHome, Path jar) {
        Set<Path> entries = new LinkedHashSet<>();
        addWithManifest(jar.toAbsolutePath().normalize(), entries);
        return new RuntimePayload(javaHome, new ArrayList<>(entries));
    }

    private static void addWithManifest(Path entry, Set<Path> out) {
        if (!Files.exists(entry) || !out.add(entry) || !entry.toString().endsWith(".jar")) {
            return;
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            Manifest m = jar.getManifest();
            String cp = m == null ? null : m.getMainAttributes().getValue("Class-Path");
            if (cp == null) {
                return;
            }
            URI base = entry.getParent().toUri();
            for (String ref : cp.trim().split("\\s+")) {
                if (!ref.isEmpty()) {
                    addWithManifest(Path.of(base.resolve(ref)).normalize(), out);
                }
            }
        } catch (IOException | IllegalArgumentException ignored) {
            // not a readable jar: keep the entry itself
        }
    }

    /**
     * Total bytes of regular files under the Java home, measured once per Java home in this process
     * (a walk of every file: ~10 ms for a JDK).
     */
    public long javaHomeBytes() {
        return MEASURED.computeIfAbsent(javaHome, RuntimePayload::measure);
    }

    private static long measure(Path javaHome) {
        try (Stream<Path> s = Files.walk(javaHome)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(
                            p -> {
                                try {
                                    return Files.size(p);
                                } catch (IOException e) {
                                    return 0;
                                }
                            })
                    .sum();
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    static byte[] resource(String name) {
        try (InputStream in =
                RuntimePayload.class.getResourceAsStream(
                        "/org/gpuoperator/toolkit/simulated/" + name)) {
            if (in == null) {
                throw new IllegalStateException("resource missing: " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
