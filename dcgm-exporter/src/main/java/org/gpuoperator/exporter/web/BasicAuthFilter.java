package org.gpuoperator.exporter.web;

import at.favre.lib.crypto.bcrypt.BCrypt;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * HTTP basic auth against the web config's bcrypt users, re-read on change. A bcrypt check costs
 * tens of milliseconds by design, so verified credentials are remembered (as a SHA-256 digest with
 * the hash they matched, in a small bounded map): Prometheus sends the same credentials every
 * scrape.
 */
final class BasicAuthFilter extends Filter {

    private static final int MAX_REMEMBERED = 64;
    private final WebConfigWatcher watcher;
    private final Map<String, Boolean> verified =
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > MAX_REMEMBERED;
                }
            };

    BasicAuthFilter(WebConfigWatcher watcher) {
        this.watcher = watcher;
    }

    @Override
    public void doFilter(HttpExchange ex, Chain chain) throws IOException {
        WebConfig config = watcher.current().config();
        if (!config.authRequired()
                || authorized(config, ex.getRequestHeaders().getFirst("Authorization"))) {
            chain.doFilter(ex);
            return;
        }
        ex.getResponseHeaders()
                .set("WWW-Authenticate", "Basic realm=\"dcgm-exporter\", charset=\"UTF-8\"");
        byte[] body = "Unauthorized\n".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(401, body.length);
        try (var os = ex.getResponseBody()) {
            os.write(body);
        }
    }

    @Override
    public String description() {
        return "basic auth from the web config";
    }

    boolean authorized(WebConfig config, String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String decoded;
        try {
            decoded =
                    new String(
                            Base64.getDecoder().decode(header.substring(6).trim()),
                            StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return false;
        }
        String user = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        String hash = config.users().get(user);
        if (hash == null) {
            return false;
        }
        String key = digest(user + '\0' + password + '\0' + hash);
        synchronized (verified) {
            if (verified.containsKey(key)) {
                return true;
            }
        }
        boolean ok =
                BCrypt.verifyer()
                        .verify(
                                password.getBytes(StandardCharsets.UTF_8),
                                hash.getBytes(StandardCharsets.UTF_8))
                        .verified;
        if (ok) {
            synchronized (verified) {
                verified.put(key, Boolean.TRUE);
            }
        }
        return ok;
    }

    private static String digest(String s) {
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
