package org.gpuoperator.toolkit.apply;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.host.HostPaths;
import org.gpuoperator.toolkit.ConfigException;

/**
 * The I/O edge for runtime config files: validates before replacing, writes atomically keeping mode
 * and owner, keeps one backup of the original, writes nothing when nothing changes, and on cleanup
 * restores the exact original bytes when nobody changed the file since we wrote it.
 *
 * <p>Backups and state live in {@code stateDir} (outside the runtime's config directories, so that
 * no runtime ever loads a backup as a drop-in): {@code <file-key>.orig} and {@code
 * <runtime>.state}.
 */
public final class ConfigApplier {

    private final Path hostRoot;
    private final Path stateDir;
    private final EventLog log;

    public ConfigApplier(Path hostRoot, Path stateDir, EventLog log) {
        this.hostRoot = hostRoot;
        this.stateDir = stateDir;
        this.log = log;
    }

    /** What a run did. */
    public record Outcome(List<String> written, Map<String, Optional<String>> contents) {
        public boolean changed() {
            return !written.isEmpty();
        }
    }

    /** The files as they would be, without writing anything (for --dry-run). */
    public Map<String, Optional<String>> preview(RuntimeConfigurer c, ExternalValidator external)
            throws ConfigException {
        Map<String, Optional<String>> current = read(c);
        RuntimeConfigurer.Plan plan = c.configure(current, loadState(c).facts());
        validateChanged(c, current, plan.files(), external);
        return plan.files();
    }

    /** Adds our runtime; writes only files whose content changes. */
    public Outcome configure(RuntimeConfigurer c, ExternalValidator external)
            throws ConfigException {
        Map<String, Optional<String>> current = read(c);
        State state = loadState(c);
        Properties before = (Properties) state.props().clone();
        RuntimeConfigurer.Plan plan = c.configure(current, state.facts());
        validateChanged(c, current, plan.files(), external);
        // state first, files after: a process killed between the two still finds the original's
        // backup and what it remembered (e.g. the default runtime it replaced) on its next start
        Map<String, Optional<String>> changed = new LinkedHashMap<>();
        for (Map.Entry<String, Optional<String>> f : plan.files().entrySet()) {
            String path = f.getKey();
            Optional<String> now = current.getOrDefault(path, Optional.empty());
            if (now.equals(f.getValue())) {
                continue;
            }
            changed.put(path, f.getValue());
            String key = fileKey(path);
            boolean fresh =
                    !state.has(key + ".writtenSha")
                            || !now.map(ConfigApplier::sha)
                                            .orElse("absent")
                                            .equals(state.get(key + ".writtenSha"))
                                    && now.map(t -> !c.mentionsUs(t)).orElse(true);
            if (fresh) {
                backup(key, now);
                state.put(key + ".originalSha", now.map(ConfigApplier::sha).orElse("absent"));
            }
            state.put(key + ".path", path);
            state.put(key + ".inputSha", now.map(ConfigApplier::sha).orElse("absent"));
            state.put(key + ".writtenSha", f.getValue().map(ConfigApplier::sha).orElse("absent"));
        }
        plan.remember().forEach((k, v) -> state.put("fact." + k, v));
        if (!state.props().equals(before)) {
            saveState(c, state); // only when something changed: a no-op run writes no byte anywhere
        }
        List<String> written = new ArrayList<>();
        for (Map.Entry<String, Optional<String>> f : changed.entrySet()) {
            writeOrDelete(f.getKey(), f.getValue());
            written.add(f.getKey());
            log.info(
                    "config-written",
                    "runtime",
                    c.name(),
                    "file",
                    f.getKey(),
                    "action",
                    f.getValue().isPresent() ? "write" : "delete");
        }
        Map<String, Optional<String>> after = new LinkedHashMap<>(current);
        after.putAll(plan.files());
        return new Outcome(written, after);
    }

    /**
     * Removes our runtime. A file unchanged since we wrote it gets its original bytes back (or is
     * deleted if it did not exist); a file someone else changed loses only our entries.
     */
    public Outcome cleanup(RuntimeConfigurer c, ExternalValidator external) throws ConfigException {
        Map<String, Optional<String>> current = read(c);
        State state = loadState(c);
        Map<String, Optional<String>> surgical = c.unconfigure(current, state.facts());
        Map<String, Optional<String>> desired = new LinkedHashMap<>();
        for (String path : c.files()) {
            String key = fileKey(path);
            Optional<String> now = current.getOrDefault(path, Optional.empty());
            String nowSha = now.map(ConfigApplier::sha).orElse("absent");
            boolean untouched =
                    nowSha.equals(state.get(key + ".writtenSha"))
                            && state.get(key + ".inputSha") != null
                            && state.get(key + ".inputSha").equals(state.get(key + ".originalSha"));
            if (untouched) {
                desired.put(path, readBackup(key));
                log.info("restore-original", "runtime", c.name(), "file", path);
            } else {
                desired.put(path, surgical.getOrDefault(path, now));
            }
        }
        validateChanged(c, current, desired, external);
        List<String> written = new ArrayList<>();
        for (Map.Entry<String, Optional<String>> f : desired.entrySet()) {
            if (!current.getOrDefault(f.getKey(), Optional.empty()).equals(f.getValue())) {
                writeOrDelete(f.getKey(), f.getValue());
                written.add(f.getKey());
                log.info(
                        "config-reverted",
                        "runtime",
                        c.name(),
                        "file",
                        f.getKey(),
                        "action",
                        f.getValue().isPresent() ? "write" : "delete");
            }
        }
        dropState(c);
        return new Outcome(written, desired);
    }

    /** Current contents of the configurer's files. */
    public Map<String, Optional<String>> read(RuntimeConfigurer c) throws ConfigException {
        Map<String, Optional<String>> m = new LinkedHashMap<>();
        for (String p : c.files()) {
            Path f = followLinks(onHost(p));
            try {
                if (Files.isDirectory(f)) {
                    throw new ConfigException(p + ": is a directory, expected a config file");
                }
                m.put(
                        p,
                        Files.exists(f)
                                ? Optional.of(Files.readString(f, StandardCharsets.UTF_8))
                                : Optional.empty());
            } catch (java.nio.charset.MalformedInputException e) {
                throw new ConfigException(p + ": not UTF-8 text", e);
            } catch (IOException e) {
                throw new ConfigException(p + ": cannot read: " + e.getMessage(), e);
            }
        }
        return m;
    }

    /**
     * A config that is a symlink (some distributions link config.toml elsewhere) is written through
     * to its target, so the link survives; absolute link targets are host paths, re-rooted under
     * the host root.
     */
    Path followLinks(Path p) throws ConfigException {
        try {
            for (int hops = 0; hops < 8 && Files.isSymbolicLink(p); hops++) {
                Path target = Files.readSymbolicLink(p);
                p = target.isAbsolute() ? onHost(target.toString()) : p.resolveSibling(target);
            }
            return p;
        } catch (IOException e) {
            throw new ConfigException(p + ": cannot follow symlink: " + e.getMessage(), e);
        }
    }

    public Path onHost(String hostPath) {
        return hostRoot.resolve(hostPath.startsWith("/") ? hostPath.substring(1) : hostPath);
    }

    private void validateChanged(
            RuntimeConfigurer c,
            Map<String, Optional<String>> current,
            Map<String, Optional<String>> desired,
            ExternalValidator external)
            throws ConfigException {
        for (Map.Entry<String, Optional<String>> f : desired.entrySet()) {
            if (f.getValue().isEmpty()
                    || f.getValue().equals(current.getOrDefault(f.getKey(), Optional.empty()))) {
                continue;
            }
            c.validate(f.getKey(), f.getValue().get());
            if (external != ExternalValidator.NONE) {
                Path tmp = null;
                try {
                    tmp = stageCandidate(f.getKey());
                    Files.writeString(tmp, f.getValue().get());
                    external.check(f.getKey(), tmp);
                } catch (IOException e) {
                    throw new ConfigException(
                            f.getKey()
                                    + ": cannot stage candidate for validation: "
                                    + e.getMessage(),
                            e);
                } finally {
                    deleteQuietly(tmp);
                }
            }
        }
    }

    private void writeOrDelete(String hostPath, Optional<String> content) throws ConfigException {
        Path f = followLinks(onHost(hostPath));
        try {
            if (content.isEmpty()) {
                Files.deleteIfExists(f);
                return;
            }
            boolean existed = Files.exists(f);
            AtomicFiles.write(f, content.get().getBytes(StandardCharsets.UTF_8));
            if (!existed) {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
            }
        } catch (IOException e) {
            throw new ConfigException(hostPath + ": cannot write: " + e.getMessage(), e);
        }
    }

    private void backup(String key, Optional<String> original) throws ConfigException {
        Path b = stateDir.resolve(key + ".orig");
        try {
            if (original.isPresent()) {
                AtomicFiles.write(b, original.get().getBytes(StandardCharsets.UTF_8));
            } else {
                Files.deleteIfExists(b);
            }
        } catch (IOException e) {
            throw new ConfigException(b + ": cannot write backup: " + e.getMessage(), e);
        }
    }

    private Optional<String> readBackup(String key) throws ConfigException {
        Path b = stateDir.resolve(key + ".orig");
        try {
            return Files.exists(b)
                    ? Optional.of(Files.readString(b, StandardCharsets.UTF_8))
                    : Optional.empty();
        } catch (IOException e) {
            throw new ConfigException(b + ": cannot read backup: " + e.getMessage(), e);
        }
    }

    /** The path of a file's backup of its original content. */
    public Path backupOf(String hostPath) {
        return stateDir.resolve(fileKey(hostPath) + ".orig");
    }

    static String fileKey(String hostPath) {
        return HostPaths.relative(hostPath).replace('/', '_');
    }

    static String sha(String text) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- state ----

    private record State(Properties props) {
        boolean has(String k) {
            return props.containsKey(k);
        }

        String get(String k) {
            return props.getProperty(k);
        }

        void put(String k, String v) {
            props.setProperty(k, v);
        }

        Map<String, String> facts() {
            Map<String, String> m = new TreeMap<>();
            props.stringPropertyNames().stream()
                    .filter(k -> k.startsWith("fact."))
                    .forEach(k -> m.put(k.substring(5), props.getProperty(k)));
            return m;
        }
    }

    private Path stateFile(RuntimeConfigurer c) {
        return stateDir.resolve(c.name() + ".state");
    }

    private State loadState(RuntimeConfigurer c) {
        Properties p = new Properties();
        Path f = stateFile(c);
        if (Files.exists(f)) {
            try (Reader r = Files.newBufferedReader(f)) {
                p.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read state " + f, e);
            }
        }
        return new State(p);
    }

    private void saveState(RuntimeConfigurer c, State s) throws ConfigException {
        try {
            java.io.StringWriter w = new java.io.StringWriter();
            try (Writer ww = w) {
                s.props()
                        .store(
                                ww,
                                "toolkit-agent state for "
                                        + c.name()
                                        + ": what to restore on cleanup");
            }
            AtomicFiles.writeString(stateFile(c), w.toString());
        } catch (IOException e) {
            throw new ConfigException(stateFile(c) + ": cannot write state: " + e.getMessage(), e);
        }
    }

    private void dropState(RuntimeConfigurer c) {
        for (String p : c.files()) {
            deleteQuietly(stateDir.resolve(fileKey(p) + ".orig"));
        }
        deleteQuietly(stateFile(c));
    }

    /**
     * A temp file the runtime binary can read, chrooted into the host root: the host's /tmp, else
     * (a pod mounts the host root read-only) the target file's own directory, which we may write
     * anyway, under a name no runtime loads ({@code .candidate}). Never in the state dir, so that a
     * dry run creates nothing that stays.
     */
    private Path stageCandidate(String targetHostPath) throws IOException {
        List<Path> dirs = new ArrayList<>();
        dirs.add(hostRoot.resolve("tmp"));
        dirs.add(onHost(targetHostPath).getParent());
        IOException last = null;
        for (Path dir : dirs) {
            if (dir == null || !Files.isDirectory(dir)) {
                continue;
            }
            try {
                return Files.createTempFile(dir, ".toolkit-agent-", ".candidate");
            } catch (IOException e) {
                last = e; // read-only: try the next place
            }
        }
        if (last != null) {
            throw last;
        }
        return Files.createTempFile(
                Path.of(System.getProperty("java.io.tmpdir")), ".toolkit-agent-", ".candidate");
    }

    private static void deleteQuietly(Path p) {
        if (p == null) {
            return;
        }
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: a stale temp file is harmless
        }
    }
}
