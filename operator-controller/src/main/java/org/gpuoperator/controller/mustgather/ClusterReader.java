package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Optional;

/**
 * What {@code must-gather} reads from a cluster; reads only. Each call may fail on its own (an
 * exception): the collector records it and goes on.
 */
public interface ClusterReader {

    List<GenericKubernetesResource> clusterPolicies();

    /** Empty where the NVIDIADriver CRD is not installed. */
    List<GenericKubernetesResource> nvidiaDrivers();

    List<Node> nodes();

    List<DaemonSet> daemonSets(String namespace);

    List<Pod> pods(String namespace);

    /** Read only to redact their values from everything else; never written as they are. */
    List<Secret> secrets(String namespace);

    List<Event> events(String namespace);

    /** Events of every namespace whose involved object is of this kind. */
    List<Event> eventsAbout(String kind);

    /**
     * A container's log; empty when the API server has none (404).
     *
     * @param previous the previous run's ({@code kubectl logs -p})
     */
    Optional<String> podLog(String namespace, String pod, String container, boolean previous);

    /** {@code GET} of a path on a pod's port through the API server's pod proxy. */
    String podProxyGet(String namespace, String pod, int port, String path);
}
