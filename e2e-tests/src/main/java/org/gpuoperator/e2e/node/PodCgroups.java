package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod's cgroup as the kubelet makes it with the cgroupfs driver: {@code /kubepods/pod<uid>} for a
 * Guaranteed pod, {@code /kubepods/burstable/pod<uid>} and {@code /kubepods/besteffort/pod<uid>}
 * for the others. It is the sandbox's {@code cgroup_parent}, so every container's cgroup is {@code
 * <parent>/<container id>} and a process's {@code /proc/<pid>/cgroup} names its pod and container,
 * which is how the exporter charges GPU processes to pods. Naming is pure; {@link #remove} is the
 * kubelet's cleanup (runc removes a container's cgroup, not its pod's).
 */
final class PodCgroups {

    static final String ROOT = "/kubepods";

    /** The machine's cgroup mounts: v2's unified root, or v1's hierarchies under it. */
    static final Path CGROUP_FS = Path.of("/sys/fs/cgroup");

    private PodCgroups() {}

    /** The QoS class the API server gives the pod (status.qosClass), from cpu and memory. */
    static String qosClass(Pod pod) {
        boolean any = false;
        boolean guaranteed = true;
        for (Container c : PodToCri.allContainers(pod)) {
            Map<String, Quantity> requests =
                    c.getResources() == null ? null : c.getResources().getRequests();
            Map<String, Quantity> limits =
                    c.getResources() == null ? null : c.getResources().getLimits();
            for (String r : List.of("cpu", "memory")) {
                BigDecimal request = amount(requests, r);
                BigDecimal limit = amount(limits, r);
                any |= request != null || limit != null;
                // a request left out is the limit (the API server's defaulting)
                if (limit == null || (request != null && request.compareTo(limit) != 0)) {
                    guaranteed = false;
                }
            }
        }
        return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
    }

    /** The pod's cgroup, the sandbox's {@code cgroup_parent}. */
    static String parent(Pod pod) {
        return parent(qosClass(pod), pod.getMetadata().getUid());
    }

    static String parent(String qosClass, String podUid) {
        return switch (qosClass) {
            case "Guaranteed" -> ROOT + "/pod" + podUid;
            case "Burstable" -> ROOT + "/burstable/pod" + podUid;
            default -> ROOT + "/besteffort/pod" + podUid;
        };
    }

    /**
     * Removes the pod's cgroup from every hierarchy under {@code cgroupFs}, whatever its QoS class;
     * one that is missing or still has processes is left (best effort, as a pod that is gone has
     * none).
     */
    static void remove(Path cgroupFs, String podUid) {
        List<Path> hierarchies = new ArrayList<>(List.of(cgroupFs));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(cgroupFs)) {
            ds.forEach(hierarchies::add);
        } catch (IOException e) {
            return; // no cgroup filesystem to clean
        }
        for (Path h : hierarchies) {
            for (String qos : List.of("Guaranteed", "Burstable", "BestEffort")) {
                try {
                    Files.deleteIfExists(h.resolve(parent(qos, podUid).substring(1)));
                } catch (IOException e) {
                    // not a directory of cgroups, or busy
                }
            }
        }
    }

    private static BigDecimal amount(Map<String, Quantity> quantities, String resource) {
        Quantity q = quantities == null ? null : quantities.get(resource);
        if (q == null) {
            return null;
        }
        BigDecimal v = Quantity.getAmountInBytes(q);
        return v.signum() == 0 ? null : v; // as the API server: a zero quantity is none
    }
}
