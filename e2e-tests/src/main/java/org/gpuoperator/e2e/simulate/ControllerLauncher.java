package org.gpuoperator.e2e.simulate;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.e2e.cluster.SimulatedCluster;

/**
 * Runs the operator's controller in this JVM against the simulated API server, as its Deployment
 * would.
 */
public final class ControllerLauncher {

    private ControllerLauncher() {}

    public static AutoCloseable start(KubernetesClient client) {
        return ControllerRuntime.start(
                client, ControllerRuntime.Config.forTests(SimulatedCluster.NAMESPACE));
    }
}
