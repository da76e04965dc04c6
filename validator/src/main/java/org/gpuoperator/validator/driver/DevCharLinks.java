package org.gpuoperator.validator.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code /dev/char/<major>:<minor>} symlinks for the NVIDIA device nodes. systemd resolves a
 * device cgroup rule through {@code /dev/char}; without these links a {@code systemctl
 * daemon-reload} drops the containers' access and NVML answers "Unknown Error" (upstream's fix).
 */
public final class DevCharLinks {

    /**
     * One link: {@code dev/char/<name>} pointing at {@code target} (relative, {@code ../nvidia0}).
     */
    public record Link(String name, String target) {}

    private DevCharLinks() {}

    /** The links for {@code nodes}, one per node, in their order. Pure. */
    public static List<Link> plan(List<DeviceNode> nodes) {
        List<Link> links = new ArrayList<>();
        for (DeviceNode n : nodes) {
            links.add(new Link(n.major() + ":" + n.minor(), "../" + n.name()));
        }
        return links;
    }

    /**
     * Creates {@code <hostRoot>/dev/char} and the links in it; a link that already points at its
     * target stays, one that points elsewhere is replaced.
     *
     * @return the links created or replaced
     */
    public static List<Path> apply(Path hostRoot, List<Link> links) throws IOException {
        Path dir = hostRoot.resolve("dev/char");
        Files.createDirectories(dir);
        List<Path> changed = new ArrayList<>();
        for (Link l : links) {
            Path link = dir.resolve(l.name());
            Path target = Path.of(l.target());
            if (Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(target)) {
                continue;
            }
            if (Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(link);
            }
            Files.createSymbolicLink(link, target);
            changed.add(link);
        }
        return changed;
    }
}
