package org.gpuoperator.exporter.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.gpuoperator.node.agent.EventLog;

/**
 * The web-config file and the TLS material it names, re-read when any of them changes (checked at
 * most once per {@code recheckNanos}, on use), so certificate rotation and user changes need no
 * restart. A change that cannot be used is logged and the previous, working configuration stays in
 * force.
 */
public final class WebConfigWatcher {

    /** The usable state: parsed config plus, with TLS, the loaded certificate chain and key. */
    public record Loaded(WebConfig config, X509Certificate[] chain, PrivateKey key) {}

    private final Path file;
    private final long recheckNanos;
    private final EventLog log;
    private volatile Loaded current;
    private List<Long> fingerprint;
    private long checkedAt;

    private WebConfigWatcher(Path file, long recheckNanos, EventLog log) {
        this.file = file;
        this.recheckNanos = recheckNanos;
        this.log = log;
    }

    /** Loads the file now; a bad file is an error here, since nothing has been served yet. */
    public static WebConfigWatcher load(Path file, long recheckNanos, EventLog log) {
        WebConfigWatcher w = new WebConfigWatcher(file, recheckNanos, log);
        w.current = w.read();
        w.fingerprint = w.fingerprint(w.current.config());
        w.checkedAt = System.nanoTime();
        return w;
    }

    public Path file() {
        return file;
    }

    /** The configuration in force, after picking up a change if one happened. */
    public Loaded current() {
        long now = System.nanoTime();
        synchronized (this) {
            if (now - checkedAt >= recheckNanos) {
                checkedAt = now;
                List<Long> fp = fingerprint(current.config());
                if (!fp.equals(fingerprint)) {
                    fingerprint = fp;
                    try {
                        Loaded next = read();
                        if ((next.config().tls() == null) != (current.config().tls() == null)) {
                            log.warn(
                                    "web-config-restart-needed",
                                    "file",
                                    file,
                                    "reason",
                                    "turning TLS on or off takes effect on restart; other changes applied");
                        }
                        current =
                                new Loaded(
                                        next.config(),
                                        next.chain() != null ? next.chain() : current.chain(),
                                        next.key() != null ? next.key() : current.key());
                        log.info(
                                "web-config-reloaded",
                                "file",
                                file,
                                "tls",
                                next.config().tls() != null,
                                "users",
                                next.config().users().size());
                    } catch (WebConfigException e) {
                        log.error(
                                "web-config-rejected",
                                "file",
                                file,
                                "error",
                                e.getMessage(),
                                "effect",
                                "keeping the previous configuration");
                    }
                }
            }
            return current;
        }
    }

    private Loaded read() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new WebConfigException("cannot read web config " + file + ": " + e);
        }
        Path dir = file.toAbsolutePath().getParent();
        WebConfig config = WebConfig.parse(file.toString(), text, dir);
        if (config.tls() == null) {
            return new Loaded(config, null, null);
        }
        List<X509Certificate> chain = PemFiles.certificates(config.tls().certFile());
        PrivateKey key = PemFiles.privateKey(config.tls().keyFile());
        if (!chain.get(0).getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
            throw new WebConfigException(
                    "key_file "
                            + config.tls().keyFile()
                            + " does not match cert_file "
                            + config.tls().certFile());
        }
        return new Loaded(config, chain.toArray(X509Certificate[]::new), key);
    }

    /** Modification times and sizes of the file and the TLS files it names. */
    private List<Long> fingerprint(WebConfig config) {
        List<Long> fp = new ArrayList<>();
        add(fp, file);
        if (config.tls() != null) {
            add(fp, config.tls().certFile());
            add(fp, config.tls().keyFile());
        }
        return fp;
    }

    private static void add(List<Long> fp, Path p) {
        try {
            fp.add(Files.getLastModifiedTime(p).toMillis());
            fp.add(Files.size(p));
        } catch (IOException e) {
            fp.add(-1L);
            fp.add(-1L);
        }
    }

    @Override
    public String toString() {
        return "WebConfigWatcher[" + Objects.toString(file) + "]";
    }
}
