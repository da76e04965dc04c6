package org.gpuoperator.exporter.web;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The parts of the exporter-toolkit web-config file (upstream's {@code --web-config-file} format)
 * this exporter implements: {@code tls_server_config.cert_file/key_file/min_version} and {@code
 * basic_auth_users} with bcrypt hashes. Keys it does not implement are rejected by name rather than
 * ignored, so nobody believes a setting is active when it is not.
 *
 * @param tls TLS settings, or null for plain HTTP
 * @param users user name to bcrypt hash; empty means no authentication
 */
public record WebConfig(Tls tls, Map<String, String> users) {

    public static final WebConfig NONE = new WebConfig(null, Map.of());

    /**
     * @param minVersion {@code TLSv1.2} or {@code TLSv1.3} (JSSE names)
     */
    public record Tls(Path certFile, Path keyFile, String minVersion) {}

    private static final Set<String> TOP_KEYS =
            Set.of("tls_server_config", "basic_auth_users", "http_server_config");
    private static final Set<String> TLS_KEYS =
            Set.of("cert_file", "key_file", "min_version", "client_auth_type");

    public WebConfig {
        users = Map.copyOf(users);
    }

    public boolean authRequired() {
        return !users.isEmpty();
    }

    /**
     * Pure: parses the YAML text; relative cert/key paths are resolved against {@code baseDir} (the
     * file's directory), as the toolkit does.
     */
    public static WebConfig parse(String source, String yamlText, Path baseDir) {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yamlText);
        } catch (YAMLException e) {
            throw new WebConfigException(
                    source + ": not valid YAML: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null) {
            return NONE;
        }
        Map<String, Object> top = map(source, "top level", root);
        for (String k : top.keySet()) {
            if (!TOP_KEYS.contains(k)) {
                throw new WebConfigException(source + ": unknown key '" + k + "'");
            }
        }
        Object http = top.get("http_server_config");
        if (http != null && !map(source, "http_server_config", http).isEmpty()) {
            throw new WebConfigException(
                    source + ": http_server_config is not supported by this exporter");
        }
        Tls tls = null;
        Object tlsNode = top.get("tls_server_config");
        if (tlsNode != null) {
            Map<String, Object> t = map(source, "tls_server_config", tlsNode);
            for (String k : t.keySet()) {
                if (!TLS_KEYS.contains(k)) {
                    throw new WebConfigException(
                            source
                                    + ": tls_server_config."
                                    + k
                                    + " is unknown or not supported by this exporter");
                }
            }
            Object clientAuth = t.get("client_auth_type");
            if (clientAuth != null && !"NoClientCert".equals(clientAuth)) {
                throw new WebConfigException(
                        source
                                + ": tls_server_config.client_auth_type "
                                + clientAuth
                                + " is not supported by this exporter (only NoClientCert)");
            }
            String cert = string(source, "tls_server_config.cert_file", t.get("cert_file"));
            String key = string(source, "tls_server_config.key_file", t.get("key_file"));
            String min = t.get("min_version") == null ? "TLS12" : t.get("min_version").toString();
            String jsse =
                    switch (min) {
                        case "TLS12" -> "TLSv1.2";
                        case "TLS13" -> "TLSv1.3";
                        default ->
                                throw new WebConfigException(
                                        source
                                                + ": tls_server_config.min_version "
                                                + min
                                                + " is not supported (TLS12 or TLS13)");
                    };
            tls = new Tls(baseDir.resolve(cert), baseDir.resolve(key), jsse);
        }
        Map<String, String> users = new LinkedHashMap<>();
        Object usersNode = top.get("basic_auth_users");
        if (usersNode != null) {
            for (var e : map(source, "basic_auth_users", usersNode).entrySet()) {
                String hash = string(source, "basic_auth_users." + e.getKey(), e.getValue());
                if (!hash.matches("\\$2[abxy]?\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                    throw new WebConfigException(
                            source
                                    + ": basic_auth_users."
                                    + e.getKey()
                                    + " is not a bcrypt hash ($2y$10$...)");
                }
                users.put(e.getKey(), hash);
            }
        }
        return new WebConfig(tls, users);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String source, String where, Object node) {
        if (!(node instanceof Map<?, ?> m)) {
            throw new WebConfigException(source + ": " + where + " must be a mapping");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    private static String string(String source, String key, Object v) {
        if (v == null || v.toString().isBlank() || v instanceof Map<?, ?> || v instanceof List<?>) {
            throw new WebConfigException(source + ": " + key + " is required and must be a string");
        }
        return v.toString();
    }
}
