package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The mock {@code libnvidia-ml.so} of {@code src/test/c/mock_nvml.c}: compiled with gcc on first
 * use into {@code target/mock-nvml/libnvidia-ml.so.1}, plus handles on its control functions
 * (failures, XID events, lost GPUs, MIG mode changes that need a GPU reset). The control handles
 * open the same file, so the dynamic loader gives them the library instance the binding under test
 * uses.
 */
public final class MockNvml {

    private static Path compiled;
    private static MockNvml control;

    private final MethodHandle setFailures;
    private final MethodHandle injectXid;
    private final MethodHandle loseGpu;
    private final MethodHandle recoverGpu;
    private final MethodHandle initCount;
    private final MethodHandle reset;
    private final MethodHandle migActivation;
    private final MethodHandle resetGpu;
    private final MethodHandle migChanges;
    private final MethodHandle gpmSamplesLive;
    private final MethodHandle setProcesses;
    private final MethodHandle lastSeenTimestamp;

    private MockNvml(Path library) {
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        Linker linker = Linker.nativeLinker();
        setFailures =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_set_failures"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS));
        injectXid =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_inject_xid"),
                        FunctionDescriptor.ofVoid(JAVA_INT, JAVA_LONG));
        loseGpu =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_lose_gpu"),
                        FunctionDescriptor.ofVoid(JAVA_INT));
        recoverGpu =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_recover_gpu"),
                        FunctionDescriptor.ofVoid(JAVA_INT));
        initCount =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_init_count"),
                        FunctionDescriptor.of(JAVA_INT));
        reset =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_reset"), FunctionDescriptor.ofVoid());
        migActivation =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_mig_activation"),
                        FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
        resetGpu =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_reset_gpu"),
                        FunctionDescriptor.ofVoid(JAVA_INT));
        migChanges =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_mig_changes"),
                        FunctionDescriptor.of(JAVA_INT));
        gpmSamplesLive =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_gpm_samples_live"),
                        FunctionDescriptor.of(JAVA_INT));
        setProcesses =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_set_processes"),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS));
        lastSeenTimestamp =
                linker.downcallHandle(
                        lookup.findOrThrow("mock_nvml_last_seen_timestamp"),
                        FunctionDescriptor.of(JAVA_LONG));
    }

    /**
     * The compute processes: {@code "gpu:pid:memMiB:sm:mem:enc:dec,..."} ({@code memMiB} {@code -}:
     * not available); null or empty clears.
     */
    public void processes(String spec) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment arg = spec == null ? MemorySegment.NULL : a.allocateFrom(spec);
            int unused = (int) setProcesses.invokeExact(arg);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The {@code lastSeenTimeStamp} of the latest {@code nvmlDeviceGetProcessUtilization} call. */
    public long lastSeenTimestamp() {
        try {
            return (long) lastSeenTimestamp.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** GPM samples allocated through the mock and not yet freed. */
    public int gpmSamplesLive() {
        try {
            return (int) gpmSamplesLive.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The C compiler on PATH ({@code gcc}, else {@code cc}), if any. */
    public static Optional<Path> compiler() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String name : new String[] {"gcc", "cc"}) {
            for (String dir : path.split(File.pathSeparator)) {
                Path p = Path.of(dir.isEmpty() ? "." : dir, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The compiled mock library, building it when missing or older than its source; empty when
     * there is no gcc.
     */
    public static synchronized Optional<Path> library() {
        if (compiled != null) {
            return Optional.of(compiled);
        }
        Optional<Path> cc = compiler();
        if (cc.isEmpty()) {
            return Optional.empty();
        }
        Path target = targetDir();
        Path source = target.getParent().resolve("src/test/c/mock_nvml.c");
        Path out = target.resolve("mock-nvml/libnvidia-ml.so.1");
        try {
            if (!Files.exists(out)
                    || Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(source))
                            < 0) {
                Files.createDirectories(out.getParent());
                Path tmp = Files.createTempFile(out.getParent(), "libnvidia-ml", ".so.tmp");
                Process p =
                        new ProcessBuilder(
                                        cc.get().toString(),
                                        "-shared",
                                        "-fPIC",
                                        "-O2",
                                        "-Wall",
                                        "-Wl,-z,noexecstack",
                                        "-o",
                                        tmp.toString(),
                                        source.toString(),
                                        "-lpthread")
                                .redirectErrorStream(true)
                                .start();
                String log = new String(p.getInputStream().readAllBytes());
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("compiling " + source + " failed:\n" + log);
                }
                Files.move(
                        tmp,
                        out,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        compiled = out;
        return Optional.of(out);
    }

    /** Control of the compiled library (requires {@link #library()} to be present). */
    public static synchronized MockNvml control() {
        if (control == null) {
            control =
                    new MockNvml(
                            library()
                                    .orElseThrow(() -> new IllegalStateException("no C compiler")));
        }
        return control;
    }

    private static Path targetDir() {
        try {
            // .../target/test-classes -> .../target
            return Path.of(
                            MockNvml.class
                                    .getProtectionDomain()
                                    .getCodeSource()
                                    .getLocation()
                                    .toURI())
                    .getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes functions fail: {@code "fn:code,fn@gpu:code"}; null or empty clears. */
    public void failures(String spec) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment arg = spec == null ? MemorySegment.NULL : a.allocateFrom(spec);
            int unused = (int) setFailures.invokeExact(arg);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void injectXid(int gpu, long xid) {
        try {
            injectXid.invokeExact(gpu, xid);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void loseGpu(int gpu) {
        try {
            loseGpu.invokeExact(gpu);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void recoverGpu(int gpu) {
        try {
            recoverGpu.invokeExact(gpu);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** How many nvmlInit_v2 calls have not been matched by nvmlShutdown. */
    public int initCount() {
        try {
            return (int) initCount.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * MIG mode changes of GPU {@code gpu} (-1: every GPU) stay pending until {@link #resetGpu},
     * {@code nvmlDeviceSetMigMode}'s activation status answering {@code code} (e.g. 16, {@code
     * NVML_ERROR_RESET_REQUIRED}); 0 lets them apply at once again.
     */
    public void migActivation(int gpu, int code) {
        try {
            migActivation.invokeExact(gpu, code);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A GPU reset: its pending MIG mode applies and its GPU instances are gone. */
    public void resetGpu(int gpu) {
        try {
            resetGpu.invokeExact(gpu);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * How many calls that change MIG state (set the mode, create or destroy an instance) were made
     * since the last {@link #reset}.
     */
    public int migChanges() {
        try {
            return (int) migChanges.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void reset() {
        try {
            reset.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
