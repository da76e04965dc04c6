package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shared libraries (glibc and friends) that ELF files need, as {@code ldd} resolves them on
 * this machine.
 */
public final class SharedLibraries {

    private static final Pattern RESOLVED =
            Pattern.compile("^\\s*(\\S+)\\s+=>\\s+(/\\S+)\\s+\\(0x[0-9a-f]+\\)\\s*$");
    private static final Pattern LOADER = Pattern.compile("^\\s*(/\\S+)\\s+\\(0x[0-9a-f]+\\)\\s*$");
    private static final Pattern MISSING = Pattern.compile("^\\s*(\\S+)\\s+=>\\s+not found\\s*$");

    private SharedLibraries() {}

    /**
     * Absolute paths named in one {@code ldd} output (the loader included, the vDSO left out).
     *
     * @throws IllegalArgumentException naming the file and the library when one is not found
     */
    public static SortedSet<String> parseLdd(String elf, String lddOutput) {
        SortedSet<String> paths = new TreeSet<>();
        for (String line : lddOutput.lines().toList()) {
            Matcher m;
            if ((m = MISSING.matcher(line)).matches()) {
                throw new IllegalArgumentException(
                        elf + ": needs " + m.group(1) + ", which ldd cannot find");
            } else if ((m = RESOLVED.matcher(line)).matches()) {
                paths.add(Path.of(m.group(2)).normalize().toString());
            } else if ((m = LOADER.matcher(line)).matches()) {
                paths.add(m.group(1));
            }
        }
        return paths;
    }

    /**
     * The union over {@code elfs}, without the libraries that lie under {@code ownDir} (the
     * runtime's own).
     */
    public static SortedSet<String> needed(List<Path> elfs, Path ownDir)
            throws IOException, InterruptedException {
        SortedSet<String> all = new TreeSet<>();
        String own = ownDir.toAbsolutePath().normalize() + "/";
        for (Path elf : elfs) {
            List<String> cmd = new ArrayList<>(List.of("ldd", elf.toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            // the runtime's libraries find each other (libjava.so -> libjvm.so) once the JVM has
            // loaded them
            pb.environment()
                    .put(
                            "LD_LIBRARY_PATH",
                            ownDir.resolve("lib") + ":" + ownDir.resolve("lib/server"));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("ldd " + elf + " failed: " + out.strip());
            }
            for (String lib : parseLdd(elf.toString(), out)) {
                if (!lib.startsWith(own)) {
                    all.add(lib);
                }
            }
        }
        return all;
    }
}
