package org.gpuoperator.e2e.images;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FileEntry;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Builds every component's image as an OCI image-layout tarball that {@code ctr images import}
 * accepts, named as the controller renders it ({@code <registry>/<component>:<version>}), plus a
 * busybox image for pod sandboxes and for workload images that are not present locally. No Docker
 * engine, no registry: layers come from local files only.
 *
 * <p>Layers of a component image, bottom up: {@code base} (glibc and the few libraries the jlinked
 * {@code java} and netty's epoll transport need, copied from this machine's Debian packages as
 * {@code ldd} finds them, plus {@code /etc/passwd}, {@code /etc/group}, {@code /tmp}); {@code
 * java-runtime} (jlink, {@link JavaRuntime}); for the agents that run {@code chroot <host-root>
 * ...}, a static busybox as {@code /usr/sbin/chroot}; {@code libs} ({@code /app/lib}); {@code app}
 * (the jar, {@code jvm.flags} and the AOT cache {@code /app/<component>.aot}, made by the
 * Dockerfile's training step run here, {@link #aotCache}). The first two are identical in every
 * component image (same digest), so a containerd stores them once. File times are fixed (Jib's
 * epoch + 1 s): same inputs, same bytes.
 */
public final class LocalImages {

    /** The name of the busybox archive ({@link BusyboxImage}) among the built images. */
    public static final String BUSYBOX_NAME = "busybox";

    /** Bumped when the layout changes in a way the inputs digest does not see. */
    static final String BUILDER_VERSION = "1";

    /** Test support that no image may carry: the kubelet emulators' module and package. */
    static final String TEST_SUPPORT_MODULE = "kubelet-emulator";

    static final String TEST_SUPPORT_PACKAGE = "org/gpuoperator/kubelet/emulator/";
    static final String NETTY_EPOLL =
            "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so";

    /**
     * java.desktop's native GUI libraries: only AWT/Swing load them and no component does; their
     * X11 needs stay out.
     */
    static final Set<String> GUI_LIBRARIES =
            Set.of(
                    "libawt.so",
                    "libawt_xawt.so",
                    "libawt_headless.so",
                    "libfontmanager.so",
                    "libfreetype.so",
                    "libjavajpeg.so",
                    "libjawt.so",
                    "libjsound.so",
                    "liblcms.so",
                    "libmlib_image.so",
                    "libsplashscreen.so");

    /** One built archive. */
    public record LocalImage(String name, String reference, Path archive, boolean reused) {
        public long size() throws IOException {
            return Files.size(archive);
        }
    }

    private final Path repoRoot;
    private final Path outDir;

    public LocalImages(Path repoRoot, Path outDir) {
        this.repoRoot = repoRoot.toAbsolutePath().normalize();
        this.outDir = outDir.toAbsolutePath().normalize();
    }

    public static Path defaultOutDir(Path repoRoot) {
        return repoRoot.resolve("e2e-tests/target/images");
    }

    public static Path archiveIn(Path outDir, String name) {
        return outDir.resolve(name + ".oci.tar");
    }

    /**
     * Builds (or reuses, when the inputs' content hash is unchanged) every archive; keyed by
     * component, then busybox and the simulated CUDA sample ({@link CudaSampleImage}). Holds the
     * directory's {@link BuildDirLock} throughout: other JVMs build into the same directory.
     */
    public Map<String, LocalImage> buildAll() throws IOException, InterruptedException {
        try (BuildDirLock held = BuildDirLock.acquire(outDir)) {
            Map<String, LocalImage> built = new LinkedHashMap<>();
            for (ImagePlan plan : plans()) {
                built.put(plan.name(), build(plan));
            }
            built.put(BUSYBOX_NAME, BusyboxImage.ensure(outDir));
            built.put(CudaSampleImage.NAME, CudaSampleImage.ensure(outDir));
            return built;
        }
    }

    /**
     * Every image's plan; makes the jlinked runtime and the base files first (both reused when
     * unchanged).
     */
    public List<ImagePlan> plans() throws IOException, InterruptedException {
        Map<String, String> refs = ImageReferences.read(repoRoot);
        for (String c : ImageLayout.COMPONENTS) {
            if (!Files.isRegularFile(jarOf(c))
                    || !Files.isDirectory(jarOf(c).resolveSibling("lib"))) {
                throw new IOException(
                        c
                                + ": "
                                + jarOf(c)
                                + " or its lib/ is missing; build the component first "
                                + "(./mvnw -q package -DskipTests)");
            }
            List<String> testSupport = testSupportIn(jarOf(c), jarOf(c).resolveSibling("lib"));
            if (!testSupport.isEmpty()) {
                throw new IOException(
                        c
                                + ": test support in the image's jar or lib/ (a stale build, or a dependency on "
                                + TEST_SUPPORT_MODULE
                                + " outside <scope>test</scope>): "
                                + testSupport);
            }
        }
        if (!BusyboxImage.available()) {
            throw new IOException(
                    BusyboxImage.BUSYBOX
                            + " is missing (Debian package busybox-static): needed for the busybox image "
                            + "and the chroot of "
                            + ImageLayout.RUN_CHROOT);
        }
        Path runtime = JavaRuntime.ensure(JavaRuntime.jdkHome(), outDir.resolve("java-runtime"));
        ImagePlan.Layer javaLayer =
                new ImagePlan.Layer("java-runtime", tree(runtime, ImageLayout.JAVA_HOME));
        BaseFiles base = baseFiles(runtime);
        ImagePlan.Layer chroot =
                new ImagePlan.Layer(
                        "chroot",
                        List.of(
                                new ImagePlan.Entry(
                                        ImageLayout.CHROOT, BusyboxImage.BUSYBOX, "755")));
        Map<String, Path> aotCaches = aotCaches(runtime);
        List<ImagePlan> plans = new ArrayList<>();
        for (String c : ImageLayout.COMPONENTS) {
            List<ImagePlan.Layer> layers = new ArrayList<>(List.of(base.layer(), javaLayer));
            if (ImageLayout.runsChroot(c)) {
                layers.add(chroot);
            }
            layers.add(
                    new ImagePlan.Layer(
                            "libs", tree(jarOf(c).resolveSibling("lib"), ImageLayout.LIB_DIR)));
            Path aot = aotCaches.get(c);
            layers.add(
                    new ImagePlan.Layer(
                            "app",
                            List.of(
                                    new ImagePlan.Entry(ImageLayout.jar(c), jarOf(c), "644"),
                                    new ImagePlan.Entry(
                                            ImageLayout.JVM_FLAGS,
                                            repoRoot.resolve("images")
                                                    .resolve(c)
                                                    .resolve("jvm.flags"),
                                            "644"),
                                    new ImagePlan.Entry(ImageLayout.aotCache(c), aot, "644"))));
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("org.opencontainers.image.title", c);
            labels.put(
                    "org.opencontainers.image.version",
                    refs.get(c).substring(refs.get(c).lastIndexOf(':') + 1));
            labels.put("org.gpuoperator.base.packages", base.provenance());
            plans.add(
                    new ImagePlan(
                            c,
                            refs.get(c),
                            layers,
                            ImageLayout.entrypoint(c),
                            environment(c),
                            ImageLayout.user(c),
                            ImageLayout.APP_DIR,
                            labels));
        }
        return plans;
    }

    /**
     * Every component's {@link #aotCache}, two trained at a time: each training is one JVM, mostly
     * on one core, and a clean build trains all eight.
     */
    private Map<String, Path> aotCaches(Path runtime) throws IOException, InterruptedException {
        Map<String, java.util.concurrent.Future<Path>> running = new LinkedHashMap<>();
        java.util.concurrent.ExecutorService pool =
                java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (String c : ImageLayout.COMPONENTS) {
                running.put(c, pool.submit(() -> aotCache(c, runtime)));
            }
            Map<String, Path> out = new LinkedHashMap<>();
            for (var e : running.entrySet()) {
                try {
                    out.put(e.getKey(), e.getValue().get());
                } catch (java.util.concurrent.ExecutionException failed) {
                    if (failed.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException(e.getKey() + ": AOT training failed", failed.getCause());
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The runtime's environment ({@link ImageLayout#environment}) and the rest of the {@code ENV}
     * of {@code images/<component>/Dockerfile} (e.g. the controller's {@code MALLOC_ARENA_MAX}), as
     * the release image has them; its own {@code JAVA_HOME} and {@code PATH} are the runtime's.
     */
    private Map<String, String> environment(String component) throws IOException {
        Path dockerfile = repoRoot.resolve("images").resolve(component).resolve("Dockerfile");
        Map<String, String> env = new LinkedHashMap<>(ImageLayout.environment());
        ReleaseDockerfile.parse(
                        repoRoot.relativize(dockerfile).toString(), Files.readString(dockerfile))
                .env()
                .forEach(env::putIfAbsent);
        return env;
    }

    /**
     * The component's AOT cache for its local image: the training step of {@code
     * images/<component>/Dockerfile} ({@link AotTraining}, the same script and component), run with
     * {@code runtime}'s java (the image's jlinked runtime) on a copy of what the image holds in
     * {@code /app}, with the file times the image's layers give them (a cache checks its jars'
     * sizes and times; their directory may differ). Reused while the step, the script, the jar,
     * {@code lib/}, {@code jvm.flags} and the runtime stay the same.
     */
    Path aotCache(String component, Path runtime) throws IOException, InterruptedException {
        Path dockerfile = repoRoot.resolve("images").resolve(component).resolve("Dockerfile");
        String where = repoRoot.relativize(dockerfile).toString();
        AotTraining step =
                AotTraining.of(where, ReleaseDockerfile.parse(where, Files.readString(dockerfile)));
        if (!step.component().equals(component)
                || !step.appDirectory().equals(ImageLayout.APP_DIR)
                || !step.cache().equals(ImageLayout.aotCache(component))) {
            throw new IOException(
                    where
                            + ": the AOT training step must train "
                            + component
                            + " in "
                            + ImageLayout.APP_DIR
                            + " into "
                            + ImageLayout.aotCache(component)
                            + ", not "
                            + step);
        }
        Path dir = outDir.resolve("aot").resolve(component);
        Path cache = aotCacheIn(outDir, component);
        Path digestFile = dir.resolve("inputs.sha256");
        Path jar = jarOf(component);
        Path lib = jar.resolveSibling("lib");
        Path flags = repoRoot.resolve("images").resolve(component).resolve("jvm.flags");
        java.security.MessageDigest d = ImagePlan.sha256();
        d.update(
                (step + "\n" + Files.readString(runtime.resolve(".recipe")))
                        .getBytes(StandardCharsets.UTF_8));
        List<Path> inputs =
                new ArrayList<>(List.of(repoRoot.resolve(AotTraining.SCRIPT), jar, flags));
        try (Stream<Path> libs = Files.list(lib)) {
            inputs.addAll(libs.sorted().toList());
        }
        for (Path in : inputs) {
            d.update(in.getFileName().toString().getBytes(StandardCharsets.UTF_8));
            d.update(Files.readAllBytes(in));
        }
        String digest = java.util.HexFormat.of().formatHex(d.digest());
        Files.createDirectories(dir);
        // builds in other JVMs (Failsafe forks of several people's ITs) share this directory: one
        // trains, the others wait and reuse its cache
        try (java.nio.channels.FileChannel lockFile =
                        java.nio.channels.FileChannel.open(
                                dir.resolve(".lock"),
                                java.nio.file.StandardOpenOption.CREATE,
                                java.nio.file.StandardOpenOption.WRITE);
                java.nio.channels.FileLock lock = lockFile.lock()) {
            if (Files.isRegularFile(cache)
                    && Files.isRegularFile(digestFile)
                    && Files.readString(digestFile).strip().equals(digest)) {
                return cache;
            }
            Files.deleteIfExists(digestFile);
            Path work = Files.createTempDirectory(dir, "training-");
            try {
                Path app = work.resolve("app");
                trainIn(step, app, jar, lib, flags, runtime, component);
                Files.move(
                        app.resolve(step.cacheFileName()),
                        cache,
                        StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } finally {
                JavaRuntime.deleteTree(work);
            }
            Files.writeString(digestFile, digest + "\n");
            return cache;
        }
    }

    /** Where {@link #aotCache} keeps a component's cache under {@code outDir}. */
    public static Path aotCacheIn(Path outDir, String component) {
        return outDir.resolve("aot").resolve(component).resolve(component + ".aot");
    }

    /** Stages what the image holds in /app into {@code app} and runs the training step there. */
    private void trainIn(
            AotTraining step,
            Path app,
            Path jar,
            Path lib,
            Path flags,
            Path runtime,
            String component)
            throws IOException, InterruptedException {
        Files.createDirectories(app.resolve("lib"));
        java.nio.file.attribute.FileTime layerTime =
                java.nio.file.attribute.FileTime.from(FileEntriesLayer.DEFAULT_MODIFICATION_TIME);
        List<Path> staged = new ArrayList<>();
        staged.add(Files.copy(jar, app.resolve(jar.getFileName().toString())));
        staged.add(Files.copy(flags, app.resolve("jvm.flags")));
        try (Stream<Path> libs = Files.list(lib)) {
            for (Path l : libs.sorted().toList()) {
                staged.add(Files.copy(l, app.resolve("lib").resolve(l.getFileName().toString())));
            }
        }
        for (Path p : staged) {
            Files.setLastModifiedTime(p, layerTime);
        }
        List<String> cmd = step.hostCommand(repoRoot, app, runtime.resolve("bin").resolve("java"));
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(6, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException(component + ": AOT training timed out: " + String.join(" ", cmd));
        }
        if (p.exitValue() != 0 || !Files.isRegularFile(app.resolve(step.cacheFileName()))) {
            throw new IOException(
                    component
                            + ": AOT training failed ("
                            + String.join(" ", cmd)
                            + ", exit "
                            + p.exitValue()
                            + "): "
                            + out.strip());
        }
        System.out.println(out.strip());
    }

    /** Writes the plan's archive unless the one there was built from the same inputs. */
    public LocalImage build(ImagePlan plan) throws IOException, InterruptedException {
        Path archive = archiveIn(outDir, plan.name());
        Path digestFile = outDir.resolve(plan.name() + ".inputs.sha256");
        String digest = plan.inputsDigest(BUILDER_VERSION);
        if (Files.isRegularFile(archive)
                && Files.isRegularFile(digestFile)
                && Files.readString(digestFile).strip().equals(digest)) {
            return new LocalImage(plan.name(), plan.reference(), archive, true);
        }
        Files.createDirectories(outDir);
        Files.deleteIfExists(digestFile);
        JibContainerBuilder image =
                Jib.fromScratch()
                        .setFormat(ImageFormat.OCI)
                        .setEntrypoint(plan.entrypoint())
                        .setEnvironment(plan.environment())
                        .setUser(plan.user())
                        .setWorkingDirectory(AbsoluteUnixPath.get(plan.workingDirectory()))
                        .setLabels(plan.labels());
        for (ImagePlan.Layer layer : plan.layers()) {
            FileEntriesLayer.Builder l = FileEntriesLayer.builder().setName(layer.name());
            for (ImagePlan.Entry e : layer.entries()) {
                l.addEntry(
                        new FileEntry(
                                e.source(),
                                AbsoluteUnixPath.get(e.imagePath()),
                                FilePermissions.fromOctalString(e.mode()),
                                FileEntriesLayer.DEFAULT_MODIFICATION_TIME));
            }
            image.addFileEntriesLayer(l.build());
        }
        Path tmp = outDir.resolve(plan.name() + ".oci.tar.tmp");
        Path cache = outDir.resolve("jib-cache");
        try {
            image.containerize(
                    Containerizer.to(TarImage.at(tmp).named(plan.reference()))
                            .setBaseImageLayersCache(cache)
                            .setApplicationLayersCache(cache)
                            .setOfflineMode(true)
                            .setToolName("gpu-operator-e2e-images"));
        } catch (Exception e) {
            if (e instanceof InterruptedException ie) {
                throw ie;
            }
            throw new IOException(
                    plan.name()
                            + ": cannot build image "
                            + plan.reference()
                            + ": "
                            + e.getMessage(),
                    e);
        }
        Files.move(
                tmp, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(digestFile, digest + "\n");
        return new LocalImage(plan.name(), plan.reference(), archive, false);
    }

    /**
     * Imports an archive into the {@code k8s.io} namespace (the one CRI uses) of the containerd at
     * {@code socket}, unpacked for its default snapshotter.
     */
    public static void importInto(Path containerdSocket, Path archive)
            throws IOException, InterruptedException {
        importInto(containerdSocket, archive, java.time.Duration.ofMinutes(5));
    }

    /** {@link #importInto(Path, Path)}, failing after {@code timeout}. */
    public static void importInto(Path containerdSocket, Path archive, java.time.Duration timeout)
            throws IOException, InterruptedException {
        List<String> cmd =
                List.of(
                        "ctr",
                        "--address",
                        containerdSocket.toString(),
                        "-n",
                        "k8s.io",
                        "images",
                        "import",
                        archive.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(archive + ": import into " + containerdSocket + " timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(
                    archive + ": import into " + containerdSocket + " failed: " + out.strip());
        }
    }

    /**
     * What of the test-support module ({@value #TEST_SUPPORT_MODULE}: the kubelet emulators) a
     * component's jar and {@code lib/} hold: jars in {@code lib} named after it, and classes of its
     * package or with "emulator" in their name in the jar. Empty for a production build.
     */
    static List<String> testSupportIn(Path jar, Path lib) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> jars = Files.list(lib)) {
            jars.map(j -> j.getFileName().toString())
                    .filter(n -> n.startsWith(TEST_SUPPORT_MODULE + "-"))
                    .sorted()
                    .forEach(n -> found.add("lib/" + n));
        }
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            zip.stream()
                    .map(ZipEntry::getName)
                    .filter(
                            n ->
                                    n.startsWith(TEST_SUPPORT_PACKAGE)
                                            || n.toLowerCase(java.util.Locale.ROOT)
                                                    .contains("emulator"))
                    .sorted()
                    .forEach(found::add);
        }
        return found;
    }

    private Path jarOf(String component) {
        return repoRoot.resolve(component).resolve("target").resolve(component + ".jar");
    }

    private record BaseFiles(ImagePlan.Layer layer, String provenance) {}

    /**
     * The base layer: the shared libraries of the runtime and of netty's epoll library, and a few
     * /etc files.
     */
    private BaseFiles baseFiles(Path runtime) throws IOException, InterruptedException {
        Path dir = outDir.resolve("base");
        JavaRuntime.deleteTree(dir);
        Files.createDirectories(dir.resolve("tmp"));
        List<Path> elfs = new ArrayList<>();
        elfs.add(runtime.resolve("bin/java"));
        try (Stream<Path> all = Files.walk(runtime.resolve("lib"))) {
            all.filter(
                            p ->
                                    p.toString().endsWith(".so")
                                            && !GUI_LIBRARIES.contains(p.getFileName().toString()))
                    .sorted()
                    .forEach(elfs::add);
        }
        Path epoll = nettyEpoll(dir);
        if (epoll != null) {
            elfs.add(epoll);
        }
        List<String> libs = new ArrayList<>(SharedLibraries.needed(elfs, runtime));
        List<ImagePlan.Entry> entries = new ArrayList<>();
        for (String lib : libs) {
            // the path ldd printed, with the bytes of the file it points to (the loader and libc
            // are symlinks on Debian)
            entries.add(new ImagePlan.Entry(lib, Path.of(lib).toRealPath(), "755"));
        }
        entries.add(
                new ImagePlan.Entry(
                        "/etc/passwd",
                        write(
                                dir,
                                "passwd",
                                """
                root:x:0:0:root:/root:/sbin/nologin
                nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin
                nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
                """),
                        "644"));
        entries.add(
                new ImagePlan.Entry(
                        "/etc/group",
                        write(
                                dir,
                                "group",
                                """
                root:x:0:
                nogroup:x:65534:
                nonroot:x:65532:
                """),
                        "644"));
        entries.add(
                new ImagePlan.Entry(
                        "/etc/nsswitch.conf",
                        write(
                                dir,
                                "nsswitch.conf",
                                """
                passwd: files
                group: files
                hosts: files dns
                """),
                        "644"));
        // Jib's permissions hold 9 bits: no sticky bit, so /tmp is 777 (one user per container
        // anyway)
        entries.add(new ImagePlan.Entry("/tmp", dir.resolve("tmp"), "777"));
        return new BaseFiles(new ImagePlan.Layer("base", entries), packagesOf(libs));
    }

    /**
     * netty's epoll transport, shipped inside grpc-netty-shaded: ldd must see what it links
     * against.
     */
    private Path nettyEpoll(Path dir) throws IOException {
        for (String c : ImageLayout.COMPONENTS) {
            try (Stream<Path> jars = Files.list(jarOf(c).resolveSibling("lib"))) {
                for (Path jar :
                        jars.filter(
                                        j ->
                                                j.getFileName()
                                                        .toString()
                                                        .startsWith("grpc-netty-shaded-"))
                                .toList()) {
                    try (ZipFile zip = new ZipFile(jar.toFile())) {
                        ZipEntry e = zip.getEntry(NETTY_EPOLL);
                        if (e != null) {
                            Path out = dir.resolve("netty-epoll.so");
                            try (InputStream in = zip.getInputStream(e)) {
                                Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
                            }
                            return out;
                        }
                    }
                }
            }
        }
        return null;
    }

    private static Path write(Path dir, String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    /**
     * Every regular file under {@code dir} (links followed) at {@code target/<relative path>},
     * modes kept.
     */
    static List<ImagePlan.Entry> tree(Path dir, String target) throws IOException {
        String prefix = target.endsWith("/") ? target : target + "/";
        try (Stream<Path> all = Files.walk(dir)) {
            List<ImagePlan.Entry> entries = new ArrayList<>();
            for (Path p : all.filter(Files::isRegularFile).sorted().toList()) {
                String rel = dir.relativize(p).toString();
                if (!rel.startsWith(".")) {
                    entries.add(new ImagePlan.Entry(prefix + rel, p, mode(p)));
                }
            }
            return entries;
        }
    }

    static String mode(Path p) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
        return perms.contains(PosixFilePermission.OWNER_EXECUTE) ? "755" : "644";
    }

    /**
     * {@code package:arch=version} of the Debian packages that own {@code files}, or why it is
     * unknown.
     */
    static String packagesOf(List<String> files) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("dpkg", "-S"));
        cmd.addAll(files);
        String owners;
        try {
            // exits 1 when one file has no owner (e.g. the loader's /lib64 alias) but still names
            // the others
            Process p =
                    new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            owners = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            return "unknown (dpkg -S failed: " + e.getMessage() + ")";
        }
        Set<String> packages = new TreeSet<>();
        for (String line : owners.lines().toList()) {
            int colon = line.indexOf(": /");
            if (colon > 0) {
                for (String pkg : line.substring(0, colon).split(",\\s*")) {
                    packages.add(pkg.trim());
                }
            }
        }
        if (packages.isEmpty()) {
            return "unknown (no Debian package owns " + files + ")";
        }
        List<String> q =
                new ArrayList<>(
                        List.of("dpkg-query", "-W", "-f=${Package}:${Architecture}=${Version}\\n"));
        q.addAll(packages);
        return String.join(" ", run(q).lines().map(String::strip).sorted().toList());
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + ": " + out.strip());
        }
        return out;
    }
}
