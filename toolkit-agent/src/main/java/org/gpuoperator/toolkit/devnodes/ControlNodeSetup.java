package org.gpuoperator.toolkit.devnodes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates, under a host root, the control device nodes the loaded driver calls for and the host
 * lacks ({@link ControlDeviceNodes}); an existing node is left as it is.
 */
public final class ControlNodeSetup {

    private final Path hostRoot;
    private final DeviceNodeMaker maker;

    public ControlNodeSetup(Path hostRoot, DeviceNodeMaker maker) {
        this.hostRoot = hostRoot;
        this.maker = maker;
    }

    /**
     * @return the nodes created, as {@code <path> c <major>:<minor>}; none when the host has them
     *     all or no driver is loaded ({@code /proc/devices} lists none of its majors)
     */
    public List<String> ensure() throws IOException {
        Path procDevices = hostRoot.resolve("proc/devices");
        if (!Files.isReadable(procDevices)) {
            return List.of();
        }
        Path migMinors = hostRoot.resolve("proc/driver/nvidia-caps/mig-minors");
        String minors =
                Files.isReadable(migMinors)
                        ? Files.readString(migMinors, StandardCharsets.US_ASCII)
                        : "";
        List<String> created = new ArrayList<>();
        for (ControlDeviceNodes.Node n :
                ControlDeviceNodes.wanted(
                        Files.readString(procDevices, StandardCharsets.US_ASCII), minors)) {
            Path p = hostRoot.resolve(n.path().substring(1));
            if (Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            maker.make(p, n.major(), n.minor(), n.permissions());
            created.add(n.path() + " c " + n.major() + ":" + n.minor());
        }
        return created;
    }
}
