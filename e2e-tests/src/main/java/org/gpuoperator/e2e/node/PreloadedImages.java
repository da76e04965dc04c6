package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.gpuoperator.e2e.images.LocalImages;

/**
 * A node whose containerd starts with the local images already in its store, as a kind node image
 * holds its preloaded ones. The archives are imported once, by a throwaway containerd, into a
 * template root next to them; each node's containerd root starts as a copy of that template: every
 * file hard-linked (content blobs and unpacked layers are never written in place), the bolt
 * databases copied (containerd writes them). Importing the ten archives (600 MB) into every node's
 * own containerd took about 10 s per node.
 */
public final class PreloadedImages {

    static final String TEMPLATE_PREFIX = "containerd-preloaded-";

    private PreloadedImages() {}

    /**
     * Makes {@code containerdRoot} (absent or empty; the daemon not running) a copy of the template
     * for {@code archives}, built first when there is none.
     */
    public static void seed(Path containerdRoot, List<Path> archives)
            throws IOException, InterruptedException {
        copy(template(archives), containerdRoot);
    }

    /** {@code containerdRoot} as a copy of {@code template}: links, and copies of the databases. */
    static void copy(Path template, Path containerdRoot) throws IOException, InterruptedException {
        Files.createDirectories(containerdRoot);
        run(
                List.of("cp", "-a", "--link", template + "/.", containerdRoot.toString()),
                "copy the preloaded image store");
        for (Path db : databases(containerdRoot)) {
            Path source = template.resolve(containerdRoot.relativize(db));
            Files.delete(db); // the link: Files.copy onto the same file does nothing
            Files.copy(
                    source,
                    db,
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.COPY_ATTRIBUTES);
        }
    }

    /** The bolt databases under {@code root}: the files containerd writes in place. */
    static List<Path> databases(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(
                            p ->
                                    Files.isRegularFile(p)
                                            && p.getFileName().toString().endsWith(".db"))
                    .toList();
        }
    }

    /**
     * The template root for {@code archives}: in their directory, named by what it holds (each
     * archive's name, size and time, and the containerd version), made once and shared by every
     * node and run until an archive changes.
     */
    static synchronized Path template(List<Path> archives)
            throws IOException, InterruptedException {
        Path dir = archives.getFirst().toAbsolutePath().getParent();
        Path template = dir.resolve(TEMPLATE_PREFIX + key(archives, containerdVersion()));
        if (Files.isDirectory(template)) {
            return template;
        }
        Path work = Files.createTempDirectory(dir, "containerd-preloading-");
        // the socket's path must stay short (108 bytes): state and socket under /tmp
        Path state = Files.createTempDirectory("containerd-preloading-");
        try {
            importAll(work.resolve("root"), state, archives);
            try {
                Files.move(work.resolve("root"), template, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                if (!Files.isDirectory(template)) {
                    throw raced; // not another JVM having made it first
                }
            }
            removeOthers(dir, template);
            return template;
        } finally {
            delete(work);
            delete(state);
        }
    }

    static String key(List<Path> archives, String containerdVersion) throws IOException {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(containerdVersion.getBytes(StandardCharsets.UTF_8));
            for (Path a : archives) {
                String entry =
                        a.getFileName()
                                + " "
                                + Files.size(a)
                                + " "
                                + Files.getLastModifiedTime(a).toMillis()
                                + "\n";
                sha.update(entry.getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void importAll(Path root, Path state, List<Path> archives)
            throws IOException, InterruptedException {
        Path socket = state.resolve("c.sock");
        Path config = state.resolve("config.toml");
        Files.writeString(
                config,
                "version = 2\n"
                        + "root = \""
                        + root
                        + "\"\nstate = \""
                        + state.resolve("state")
                        + "\"\n[grpc]\n  address = \""
                        + socket
                        + "\"\n[ttrpc]\n  address = \""
                        + socket
                        + ".ttrpc\"\n");
        Process daemon =
                new ProcessBuilder("containerd", "--config", config.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(state.resolve("containerd.log").toFile())
                        .start();
        try {
            awaitSocket(socket, daemon, Duration.ofSeconds(30));
            for (Path archive : archives) {
                LocalImages.importInto(socket, archive, PrivateContainerd.IMPORT_TIMEOUT);
            }
        } finally {
            daemon.destroy(); // SIGTERM: containerd closes its databases
            if (!daemon.waitFor(20, TimeUnit.SECONDS)) {
                daemon.destroyForcibly();
                throw new IOException("the preloading containerd did not stop on SIGTERM");
            }
        }
    }

    private static void awaitSocket(Path socket, Process daemon, Duration timeout)
            throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!daemon.isAlive()) {
                throw new IOException("the preloading containerd exited: " + daemon.exitValue());
            }
            if (Files.exists(socket)) {
                Process v =
                        new ProcessBuilder("ctr", "--address", socket.toString(), "version")
                                .redirectErrorStream(true)
                                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                .start();
                if (v.waitFor(10, TimeUnit.SECONDS) && v.exitValue() == 0) {
                    return;
                }
            }
            Thread.sleep(50);
        }
        throw new IOException("the preloading containerd did not answer within " + timeout);
    }

    /** {@code containerd --version}, asked once: every node's {@link #template} lookup needs it. */
    private static String askedContainerdVersion;

    private static synchronized String containerdVersion()
            throws IOException, InterruptedException {
        if (askedContainerdVersion == null) {
            askedContainerdVersion = askContainerdVersion();
        }
        return askedContainerdVersion;
    }

    private static String askContainerdVersion() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("containerd", "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("`containerd --version` failed: " + out);
        }
        return out;
    }

    /** Templates of earlier archives: nothing uses them again. */
    private static void removeOthers(Path dir, Path keep) throws IOException, InterruptedException {
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.filter(
                            p ->
                                    p.getFileName().toString().startsWith(TEMPLATE_PREFIX)
                                            && !p.equals(keep))
                    .forEach(stale::add);
        }
        for (Path p : stale) {
            delete(p);
        }
    }

    private static void delete(Path p) throws IOException, InterruptedException {
        if (Files.exists(p)) {
            run(List.of("rm", "-rf", p.toString()), "remove " + p);
        }
    }

    private static void run(List<String> cmd, String what)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("cannot " + what + ": " + String.join(" ", cmd) + ": " + out);
        }
    }
}
