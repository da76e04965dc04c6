package org.gpuoperator.controller.reconcile;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this process lost the lease it led with while running. JOSDK then stops reconciling and
 * keeps the process, so the pod would stay Running and Ready and do nothing. Instead /healthz fails
 * and the kubelet's liveness probe restarts the container, which campaigns again: where
 * controller-runtime's exit on a lost lease ends, without a {@code System.exit} from the elector's
 * callback (JOSDK's {@code exitOnStopLeading}).
 */
final class Leadership {

    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

    private volatile boolean stopping;
    private volatile boolean lost;

    /** The operator is being stopped: the elector's end is not a lost lease. */
    void stopping() {
        stopping = true;
    }

    /** The elector's "stopped leading". */
    void stoppedLeading() {
        if (!stopping && !lost) {
            lost = true;
            LOG.error(
                    "lost the lease while running: reconciling has stopped; /healthz fails so that"
                            + " the kubelet restarts this container");
        }
    }

    boolean lost() {
        return lost;
    }
}
