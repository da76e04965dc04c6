package org.gpuoperator.driver.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Finds the processes that hold the GPUs open: every {@code /proc/<pid>/fd/*} link of the host that
 * points at a {@code /dev/nvidia*} device. This is what keeps the nvidia modules from unloading
 * ("driver is in use").
 */
public final class GpuHolders {

    /** One process with GPU device files open. */
    public record Holder(long pid, String command, Set<String> devices) {
        @Override
        public String toString() {
            return "pid " + pid + " (" + command + ") " + String.join(",", devices);
        }
    }

    private final HostRoot host;

    public GpuHolders(HostRoot host) {
        this.host = host;
    }

    /** The holders, by pid, leaving out {@code exclude} (e.g. our own nvidia-persistenced). */
    public List<Holder> scan(Set<Long> exclude) {
        Map<Long, Holder> out = new TreeMap<>();
        Path proc = host.path("/proc");
        try (DirectoryStream<Path> pids =
                Files.newDirectoryStream(proc, p -> isNumeric(p.getFileName().toString()))) {
            for (Path pidDir : pids) {
                long pid = Long.parseLong(pidDir.getFileName().toString());
                if (exclude.contains(pid)) {
                    continue;
                }
                Set<String> devices = devicesOf(pidDir.resolve("fd"));
                if (!devices.isEmpty()) {
                    out.put(pid, new Holder(pid, command(pidDir), devices));
                }
            }
        } catch (IOException e) {
            // no /proc to read: nobody found; rmmod still refuses if the driver is in use
        }
        return new ArrayList<>(out.values());
    }

    /**
     * One line for logs and status: {@code pid 4242 (python3) /dev/nvidia0,/dev/nvidiactl; pid
     * ...}.
     */
    public static String describe(List<Holder> holders) {
        return holders.stream().map(Holder::toString).collect(Collectors.joining("; "));
    }

    private static Set<String> devicesOf(Path fdDir) {
        Set<String> devices = new TreeSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("/dev/nvidia")) {
                        devices.add(target);
                    }
                } catch (IOException | UnsupportedOperationException ignored) {
                    // the fd closed while we looked, or is not a link
                }
            }
        } catch (IOException e) {
            // the process exited, or we may not look at it
        }
        return devices;
    }

    private static String command(Path pidDir) {
        try {
            return Files.readString(pidDir.resolve("comm")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    private static boolean isNumeric(String s) {
        return !s.isEmpty() && s.chars().allMatch(Character::isDigit);
    }
}
