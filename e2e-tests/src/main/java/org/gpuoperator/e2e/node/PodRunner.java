package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * The kubelet's pod work on one simulated node: given the pods bound to the node, make them run and report their
 * status. Two implementations: {@link SimulatedKubelet} runs each pod as a host process (no root or containerd needed),
 * {@link CriPodRunner} runs real containers through the node's containerd. {@link SimulatedNode#start} picks one.
 */
public interface PodRunner extends AutoCloseable {

    /** One pass; called from the cluster's loop thread. Must return quickly. */
    void sync(List<Pod> podsOnNode);

    /** Stops every pod this runner started. */
    @Override
    void close();
}
