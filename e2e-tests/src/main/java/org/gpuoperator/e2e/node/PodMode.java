package org.gpuoperator.e2e.node;

import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.e2e.images.BusyboxImage;

/**
 * How a simulated node runs its pods: the one switch between host processes and real containers.
 */
public sealed interface PodMode {

    /**
     * Each pod as a host process with mapped paths and ports ({@link SimulatedKubelet}); needs
     * neither root nor containerd.
     */
    record Processes() implements PodMode {}

    /**
     * Each pod as containers in the node's private containerd through CRI ({@link CriPodRunner}),
     * on the node's own CNI bridge. Needs root, containerd, {@code /bin/busybox} and the CNI
     * plugins in {@code /usr/lib/cni}; where one is missing the node falls back to {@link
     * Processes} and says why in an event.
     *
     * @param access the API server as pods see it (KUBERNETES_SERVICE_* env, service-account
     *     volume)
     * @param backoff crash-loop back-off ({@link RestartBackoff#KUBELET}, or shorter in tests)
     * @param imageArchives OCI image archives imported into the node's containerd at start: the
     *     component images, {@link BusyboxImage} (the sandbox image) and the CUDA sample; a pod
     *     image that is not there is pulled from the simulated registry ({@link
     *     org.gpuoperator.e2e.images.SimulatedRegistry}) or fails as on a real node
     */
    record Containers(ClusterAccess access, RestartBackoff backoff, List<Path> imageArchives)
            implements PodMode {}

    PodMode PROCESSES = new Processes();

    /** Why {@link Containers} cannot run on this machine, or null when it can. */
    static String containersUnavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "not root";
        }
        if (!PrivateContainerd.installed()) {
            return "containerd is not installed";
        }
        if (!BusyboxImage.available()) {
            return "/bin/busybox is missing (busybox-static)";
        }
        if (!java.nio.file.Files.isExecutable(Path.of("/usr/lib/cni/bridge"))) {
            return "the CNI plugins are missing in /usr/lib/cni (containernetworking-plugins)";
        }
        return null;
    }
}
