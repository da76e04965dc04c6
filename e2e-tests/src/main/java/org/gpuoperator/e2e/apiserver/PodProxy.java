package org.gpuoperator.e2e.apiserver;

import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kube-apiserver's pod proxy, {@code GET
 * /api/v1/namespaces/<ns>/pods/<[scheme:]name[:port]>/proxy[/path]}, as far as a client needs it
 * here (e.g. {@code kubectl get --raw} or must-gather scraping the controller's metrics): the pod's
 * IP and port from its object (pure); {@link ApiFront} sends the request there.
 */
final class PodProxy {

    private static final Pattern PATH =
            Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/]+)/proxy(/.*)?$");

    /**
     * @param port a number, a container port's name, or empty (80, as kube-apiserver)
     * @param path at least {@code /}
     */
    record Target(String namespace, String pod, String scheme, String port, String path) {}

    private PodProxy() {}

    static Optional<Target> parse(String path) {
        Matcher m = PATH.matcher(path);
        if (!m.matches()) {
            return Optional.empty();
        }
        String[] parts = m.group(2).split(":", -1);
        String scheme = "http";
        String name;
        String port = "";
        if (parts.length == 3) {
            scheme = parts[0].isEmpty() ? "http" : parts[0];
            name = parts[1];
            port = parts[2];
        } else if (parts.length == 2 && (parts[0].equals("http") || parts[0].equals("https"))) {
            scheme = parts[0];
            name = parts[1];
        } else if (parts.length == 2) {
            name = parts[0];
            port = parts[1];
        } else {
            name = parts[0];
        }
        String rest = m.group(3) == null ? "/" : m.group(3);
        return Optional.of(new Target(m.group(1), name, scheme, port, rest));
    }

    /**
     * The port to connect to: a number as given, a name looked up among the pod's container ports,
     * none 80.
     *
     * @throws IllegalArgumentException naming the port no container has
     */
    static int port(Target t, Map<String, Object> pod) {
        if (t.port().isEmpty()) {
            return 80;
        }
        if (t.port().chars().allMatch(Character::isDigit)) {
            return Integer.parseInt(t.port());
        }
        for (Map<String, Object> c : Json.maps(Json.map(pod, "spec"), "containers")) {
            for (Map<String, Object> p : Json.maps(c, "ports")) {
                if (t.port().equals(p.get("name")) && p.get("containerPort") instanceof Number n) {
                    return n.intValue();
                }
            }
        }
        throw new IllegalArgumentException(
                "no container port named " + t.port() + " in pod " + t.namespace() + "/" + t.pod());
    }

    /** The pod's IP, empty while it has none. */
    static Optional<String> podIp(Map<String, Object> pod) {
        Object ip = Json.map(pod, "status").get("podIP");
        return ip instanceof String s && !s.isBlank() ? Optional.of(s) : Optional.empty();
    }
}
