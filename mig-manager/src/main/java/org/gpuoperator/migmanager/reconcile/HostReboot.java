package org.gpuoperator.migmanager.reconcile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * How the MIG manager asks for the node's reboot when a GPU needs a reset to change its MIG mode
 * ({@code WITH_REBOOT=true}, upstream's switch). It never reboots the node itself: upstream's MIG
 * manager does, and its admins meet nodes rebooting under their workloads. It writes a reboot
 * sentinel file instead, which a reboot daemon that drains nodes one at a time (kured's {@code
 * --reboot-sentinel}) or the admin's own tooling acts on.
 */
@FunctionalInterface
public interface HostReboot {

    /** The sentinel on the host; the operator mounts {@code /run/nvidia/mig-manager}. */
    String DEFAULT_SENTINEL = "/run/nvidia/mig-manager/reboot-required";

    /** Asks for a reboot, saying why; idempotent. */
    void request(String reason) throws IOException;

    /** Writes {@code sentinel} with the reason and the time (its directory is created). */
    static HostReboot sentinel(Path sentinel) {
        return reason -> {
            Files.createDirectories(sentinel.getParent());
            Path tmp = sentinel.resolveSibling(sentinel.getFileName() + ".tmp");
            Files.writeString(tmp, "requested-at=" + Instant.now() + "\nreason=" + reason + "\n");
            Files.move(
                    tmp,
                    sentinel,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        };
    }
}
