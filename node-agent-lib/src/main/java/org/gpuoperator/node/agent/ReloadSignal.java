package org.gpuoperator.node.agent;

/**
 * SIGHUP re-reads an agent's config, as upstream's config-manager sidecar expects of the device
 * plugin and feature discovery: one handler, one pair of events ({@code event=signal name=SIGHUP
 * action=reload}, or {@code event=signal-unavailable} where the JVM cannot take the signal).
 */
public final class ReloadSignal {

    private ReloadSignal() {}

    /**
     * Installs the handler; each SIGHUP runs {@code reload} on a new thread named {@code reload},
     * off the JVM's signal thread. Returns false (and logs once) when SIGHUP cannot be handled
     * here.
     */
    public static boolean install(EventLog log, Runnable reload) {
        try {
            sun.misc.Signal.handle(
                    new sun.misc.Signal("HUP"),
                    sig -> {
                        log.info("signal", "name", "SIGHUP", "action", "reload");
                        Thread.ofPlatform().name("reload").start(reload);
                    });
            return true;
        } catch (IllegalArgumentException unsupported) {
            log.warn("signal-unavailable", "name", "SIGHUP", "detail", unsupported.getMessage());
            return false;
        }
    }
}
