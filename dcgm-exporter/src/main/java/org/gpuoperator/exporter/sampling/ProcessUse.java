package org.gpuoperator.exporter.sampling;

import java.util.Optional;
import org.gpuoperator.node.inventory.GpuProcess;

/**
 * One process on a GPU and the pod it runs in, as its cgroup said when it was sampled.
 *
 * @param podUid the pod's UID; empty when the process runs in no pod or was not located
 * @param located whether its cgroup could be read (false: the exporter does not see the host's
 *     PIDs, or the process ended)
 */
public record ProcessUse(GpuProcess process, Optional<String> podUid, boolean located) {}
