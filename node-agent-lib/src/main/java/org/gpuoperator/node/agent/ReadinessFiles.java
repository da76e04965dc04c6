package org.gpuoperator.node.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The node-side gate between agents: {@code /run/nvidia/validations/<name>} exists once an agent's
 * work is verified, holds {@code KEY=VALUE} facts for its successors, and is removed when the agent
 * stops.
 *
 * <p>Names in the pipeline: {@link #DRIVER}, {@link #TOOLKIT}, {@link #PLUGIN}. A successor waits
 * for one with {@link PredecessorWait}.
 */
public final class ReadinessFiles {

    public static final String DEFAULT_DIR = "/run/nvidia/validations";
    public static final String DRIVER = "driver-ready";
    public static final String TOOLKIT = "toolkit-ready";
    public static final String PLUGIN = "plugin-ready";

    /**
     * The MIG layout in force, written by the MIG manager ({@code layout=<fingerprint>}): the
     * node's CDI writer (the toolkit) rewrites the CDI spec when it changes, then copies it to
     * {@link #MIG_LAYOUT_CDI}.
     */
    public static final String MIG_LAYOUT = "mig-layout";

    /** The MIG layout the CDI spec now describes, written by the toolkit. */
    public static final String MIG_LAYOUT_CDI = "mig-layout-cdi";

    private final Path dir;

    public ReadinessFiles(Path dir) {
        this.dir = dir;
    }

    public Path directory() {
        return dir;
    }

    public Path file(String name) {
        return dir.resolve(name);
    }

    /** Marks {@code name} ready with the given facts (written atomically). */
    public void markReady(String name, Map<String, String> facts) {
        StringBuilder sb = new StringBuilder();
        facts.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        try {
            AtomicFiles.writeString(file(name), sb.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write readiness file " + file(name), e);
        }
    }

    public void clear(String name) {
        try {
            Files.deleteIfExists(file(name));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove readiness file " + file(name), e);
        }
    }

    /** The facts of {@code name} when it is ready. */
    public Optional<Map<String, String>> read(String name) {
        Path f = file(name);
        try {
            if (!Files.isRegularFile(f)) {
                return Optional.empty();
            }
            Map<String, String> facts = new LinkedHashMap<>();
            for (String line : Files.readAllLines(f)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    facts.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
            return Optional.of(facts);
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
