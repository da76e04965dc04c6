package org.gpuoperator.e2e.node;

/**
 * How pods on the simulated cluster reach the API server, as a real kubelet hands it to containers:
 * the {@code KUBERNETES_SERVICE_HOST}/{@code _PORT} variables and the service-account volume
 * ({@code /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}}).
 *
 * @param host address pods use for the API server (must be reachable from the pod network); null:
 *     the node's own address (its bridge gateway), which {@link SimulatedNode#start} fills in
 * @param port its port
 * @param token the bearer token pods present
 * @param caPem the CA certificate(s) in PEM, for {@code ca.crt}; empty where the server speaks
 *     plain HTTP
 */
public record ClusterAccess(String host, int port, String token, String caPem) {

    /** This access with {@code host} where it names none. */
    public ClusterAccess orHost(String host) {
        return this.host != null ? this : new ClusterAccess(host, port, token, caPem);
    }
}
