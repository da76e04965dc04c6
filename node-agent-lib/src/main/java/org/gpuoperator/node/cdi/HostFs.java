package org.gpuoperator.node.cdi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.node.host.HostPaths;

/**
 * The host's files under the agent's host root (the host's {@code /} mounted at, e.g., {@code
 * /host}). A device node is a real character device (numbers from {@code unix:rdev}) or, on a
 * simulated node, a regular file holding {@code c <major>:<minor>} as the simulated driver writes
 * it.
 */
public final class HostFs implements DriverFs {

    private static final Pattern SIMULATED_NODE = Pattern.compile("([cb]) (\\d+):(\\d+)\\s*");

    private final Path hostRoot;

    public HostFs(Path hostRoot) {
        this.hostRoot = hostRoot;
    }

    private Path path(String absolute) {
        return HostPaths.under(hostRoot, absolute);
    }

    @Override
    public Optional<byte[]> read(String path) throws IOException {
        try {
            return Optional.of(Files.readAllBytes(path(path)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<String> list(String dir) throws IOException {
        Path d = path(dir);
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Override
    public boolean isFile(String path) {
        return Files.isRegularFile(path(path));
    }

    @Override
    public boolean exists(String path) {
        return Files.exists(path(path));
    }

    @Override
    public boolean isDirectory(String path) {
        return Files.isDirectory(path(path));
    }

    @Override
    public Optional<String> linkTarget(String path) throws IOException {
        Path p = path(path);
        return Files.isSymbolicLink(p)
                ? Optional.of(Files.readSymbolicLink(p).toString())
                : Optional.empty();
    }

    @Override
    public Optional<CdiSpec.DeviceNode> deviceNode(String path) throws IOException {
        Path p = path(path);
        if (!Files.exists(p)) {
            return Optional.empty();
        }
        if (Files.isRegularFile(p)) {
            if (Files.size(p) > 64) {
                return Optional.empty();
            }
            Matcher m = SIMULATED_NODE.matcher(Files.readString(p, StandardCharsets.US_ASCII));
            return m.matches()
                    ? Optional.of(
                            new CdiSpec.DeviceNode(
                                    path,
                                    null,
                                    m.group(1),
                                    Long.parseLong(m.group(2)),
                                    Long.parseLong(m.group(3)),
                                    null,
                                    null,
                                    null))
                    : Optional.empty();
        }
        Object mode = Files.getAttribute(p, "unix:mode");
        Object rdev = Files.getAttribute(p, "unix:rdev");
        if (!(mode instanceof Integer md) || !(rdev instanceof Long dev)) {
            return Optional.empty();
        }
        String type =
                switch (md & 0170000) {
                    case 0020000 -> "c";
                    case 0060000 -> "b";
                    default -> null;
                };
        if (type == null) {
            return Optional.empty();
        }
        // glibc's gnu_dev_major/gnu_dev_minor split of a 64-bit dev_t
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & 0xfffff000L);
        long minor = (dev & 0xff) | ((dev >>> 12) & 0xffffff00L);
        return Optional.of(
                new CdiSpec.DeviceNode(path, null, type, major, minor, null, null, null));
    }
}
