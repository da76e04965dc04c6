package org.gpuoperator.node.agent;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * Does, on a daemon thread, the JDK's and Jackson's one-time work of an agent's first API request:
 * static initializers and tables that no AOT cache holds (a cache loads and links classes; it runs
 * no static initializer of these). Started first thing in an agent whose first request is on its
 * way to ready, it runs on a second core while the agent parses its command line, reads its GPUs
 * and builds its client, instead of on the path of that request. Each step is work the request
 * would do itself, in the order the request reaches it (async-profiler wall profiles of
 * feature-discovery); nothing is kept but the JDK's and Jackson's own static state and the JDK's
 * cache of parsed certificates. Only where a request comes before the agent is ready:
 * feature-discovery, mig-manager, and the validator, whose first round calls the API (started where
 * nothing on the way to ready did, a warm-up cost 90 ms more CPU for nothing).
 */
public final class FirstRequestWarmUp {

    /** One piece of that work, named for a test that runs each one strictly. */
    record Step(String name, Work work) {}

    @FunctionalInterface
    interface Work {
        void run() throws Exception;
    }

    private FirstRequestWarmUp() {}

    /** Starts the warm-up; the returned thread ends by itself. */
    public static Thread start() {
        return Thread.ofPlatform()
                .daemon()
                .name("first-request-warm-up")
                .start(FirstRequestWarmUp::run);
    }

    static void run() {
        for (Step step : steps()) {
            try {
                step.work().run();
            } catch (Exception | LinkageError e) {
                // not on this runtime or class path: the request says so, if it needs it
            }
        }
    }

    static List<Step> steps() {
        return List.of(
                // the client's serialization: ObjectMapper's statics build a date format, whose
                // calendar reads the locale's week data (~25 ms)
                new Step(
                        "object-mapper",
                        () -> initialize("com.fasterxml.jackson.databind.ObjectMapper")),
                // fabric8 merges the cluster's CA into the runtime's default trust store, which it
                // loads and parses (~30 ms); the JDK keeps each parsed certificate by its bytes, so
                // fabric8's own load finds them parsed
                new Step("default-trust-store", FirstRequestWarmUp::loadDefaultTrustStore),
                // the TLS context's statics: cipher suites and the algorithm constraints (~13 ms)
                new Step("tls-context", () -> SSLContext.getInstance("TLSv1.3")),
                // a TLS 1.3 client offers an x25519 and a secp256r1 key share; the first secp256r1
                // key pair builds a table of precomputed points (~100 ms, mostly interpreted)
                new Step("key-shares", FirstRequestWarmUp::keyShares),
                // the first response's parser: Jackson's parser base holds BigDecimal bounds, and
                // BigDecimal's statics compute tables of powers (~40 ms)
                new Step(
                        "json-parser",
                        () -> initialize("com.fasterxml.jackson.core.base.ParserMinimalBase")));
    }

    private static void initialize(String className) throws ClassNotFoundException {
        Class.forName(className, true, FirstRequestWarmUp.class.getClassLoader());
    }

    /**
     * The store fabric8 reads when a config names none: the JDK's, unless a property names another.
     */
    private static void loadDefaultTrustStore() throws Exception {
        String named = System.getProperty("javax.net.ssl.trustStore");
        Path security = Path.of(System.getProperty("java.home"), "lib", "security");
        Path store =
                named != null && !named.isEmpty()
                        ? Path.of(named)
                        : Files.exists(security.resolve("jssecacerts"))
                                ? security.resolve("jssecacerts")
                                : security.resolve("cacerts");
        KeyStore keyStore =
                KeyStore.getInstance(
                        System.getProperty(
                                "javax.net.ssl.trustStoreType", KeyStore.getDefaultType()));
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, null);
        }
    }

    private static void keyShares() throws Exception {
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(new ECGenParameterSpec("secp256r1"));
        ec.generateKeyPair();
        KeyPairGenerator.getInstance("X25519").generateKeyPair();
    }
}
