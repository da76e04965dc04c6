package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The kubelet's pod work on one simulated node: given the pods bound to the node, make them run and
 * report their status. Two implementations: {@link SimulatedKubelet} runs each pod as a host
 * process (no root or containerd needed), {@link CriPodRunner} runs real containers through the
 * node's containerd. {@link SimulatedNode#start} picks one.
 */
public interface PodRunner extends AutoCloseable {

    /** One pass; called from the cluster's loop thread. Must return quickly. */
    void sync(List<Pod> podsOnNode);

    /** Names of the pods whose main container (or process) runs now. */
    Set<String> runningPods();

    /**
     * {@code host:port} where this machine reaches {@code containerPort} of the named pod, while it
     * runs.
     */
    Optional<String> endpoint(String podName, int containerPort);

    /** Kills the named pod's main container (or process) without warning, as a crash would. */
    void crash(String podName);

    /**
     * For {@code kubectl exec}: the named container of the pod with this uid, while it runs.
     *
     * @throws java.util.NoSuchElementException the kubelet's {@code container not found ("c")}
     * @throws UnsupportedOperationException when this runner cannot run commands in its pods
     */
    default org.gpuoperator.e2e.apiserver.PodExec.Target execTarget(
            String podUid, String container) {
        throw new UnsupportedOperationException(
                "its pods run as host processes (process mode), which cannot run commands in"
                        + " them; pods in containerd mode can");
    }

    /** Stops every pod this runner started. */
    @Override
    void close();
}
