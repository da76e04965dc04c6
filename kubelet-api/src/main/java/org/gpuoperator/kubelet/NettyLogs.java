package org.gpuoperator.kubelet;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log levels of gRPC's netty (shaded). A class of its own, with no netty type in it, so a
 * caller that has not dialled yet loads no netty class by setting them.
 */
public final class NettyLogs {

    private static final String BOOTSTRAP = "io.grpc.netty.shaded.io.netty.bootstrap";

    private NettyLogs() {}

    /**
     * gRPC asks netty for {@code SO_KEEPALIVE} on every connection, which unix sockets do not have,
     * and netty warns about it at each connect and accept: harmless, so kept out of the agents'
     * logs, through java.util.logging (netty's logger where no SLF4J provider is present) and
     * SLF4J's simple provider (which the agents with a fabric8 client carry). Idempotent; {@link
     * UnixSockets} calls it when it is loaded.
     *
     * @return the java.util.logging logger, which the caller keeps referenced: java.util.logging
     *     forgets the level of a logger no one references
     */
    public static Logger quietBootstrap() {
        String simpleLoggerKey = "org.slf4j.simpleLogger.log." + BOOTSTRAP;
        if (System.getProperty(simpleLoggerKey) == null) {
            System.setProperty(simpleLoggerKey, "error");
        }
        Logger log = Logger.getLogger(BOOTSTRAP);
        log.setLevel(Level.SEVERE);
        return log;
    }
}
