package org.gpuoperator.node.agent;

import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;

/**
 * Does, on a daemon thread, the JDK's one-time work of an agent's first TLS handshake: a TLS 1.3
 * client offers a key share for x25519 and one for secp256r1, and the JDK's first secp256r1 key
 * pair builds a table of precomputed points in a static initializer that no AOT cache holds (~100
 * ms of CPU, mostly interpreted, by async-profiler on feature-discovery). Started first thing in an
 * agent whose first API request is on its start path, it runs on a second core while the agent
 * parses its command line, reads its GPUs and builds its client, instead of on the path of that
 * request. The work is the same the handshake would do; nothing is kept but the JDK's own tables.
 * Only where a request comes before the agent is ready: the validator reports ready before its
 * first request, and the warm-up made its start 24 ms slower and cost 90 ms more CPU there.
 */
public final class TlsWarmUp {

    private TlsWarmUp() {}

    /** Starts the warm-up; the returned thread ends by itself. */
    public static Thread start() {
        return Thread.ofPlatform().daemon().name("tls-warm-up").start(TlsWarmUp::keyShares);
    }

    /** One key pair of each kind the client's first handshake offers. */
    static void keyShares() {
        try {
            KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
            ec.initialize(new ECGenParameterSpec("secp256r1"));
            ec.generateKeyPair();
            KeyPairGenerator.getInstance("X25519").generateKeyPair();
        } catch (GeneralSecurityException | RuntimeException e) {
            // a runtime without these: the handshake says what it lacks, if it needs them
        }
    }
}
