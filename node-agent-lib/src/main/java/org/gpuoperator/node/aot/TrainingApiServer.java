package org.gpuoperator.node.aot;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.gpuoperator.node.agent.AtomicFiles;

/**
 * A stand-in Kubernetes API server for an image's AOT training run (images/aot-training.sh), never
 * for a cluster: an agent that talks to the API server on its start path (labels, annotations, its
 * own Node) loads and links the Kubernetes client, TLS and JSON classes only when it makes those
 * calls, so a training run without an API server leaves them out of the cache and every start in a
 * cluster loads them from the jars (measured on feature-discovery: CPU to the first publish 1.6 s
 * without them, 0.9 s with them).
 *
 * <p>It serves HTTPS on a free loopback port with the keystore's key, and answers what the agents
 * ask at start for their own Node: {@code GET /api/v1/nodes/<node>}, a list of nodes (one item), a
 * {@code PATCH} of it (answered with the Node, the patch not applied), a watch of it (mig-manager's
 * informer), a list of pods (none), and the validator's workload pods: a pod it creates in a
 * namespace (the posted pod, kept by name) has succeeded when read back, until it is deleted; the
 * namespace's events are none. A watch is served over HTTP: the WebSocket upgrade fabric8 tries
 * first is answered 200 with no upgrade, on which fabric8 watches over HTTP instead; that watch
 * gets one bookmark and stays open (the Node never changes) until the server closes. Everything
 * else is a 404 Status, which the agents log and retry as they would in a cluster.
 *
 * <p>Once it listens it writes, beside the kubeconfig it is given: {@code serviceaccount/} (the
 * {@code token}, {@code ca.crt} and {@code namespace} a pod's service-account volume holds; the
 * key's certificate as the CA) and {@code pod.env}, the environment that puts the agent on a pod's
 * path to the API server: {@code KUBERNETES_SERVICE_HOST} and {@code _PORT} as the kubelet sets
 * them, fabric8's variables naming the two files instead of {@code
 * /var/run/secrets/kubernetes.io/serviceaccount/}, and {@code KUBECONFIG} naming no file (a pod has
 * none; without it a developer's {@code ~/.kube/config} would be read). A kubeconfig is the slower
 * path: parsing it into fabric8's model cost feature-discovery ~160 ms of CPU at each start, work a
 * pod never does. The kubeconfig (same server, same CA) is written last, atomically: it says the
 * rest is there. When it answers the first patch of the Node it writes {@code node-patched} there
 * too: the training run lasts until the agent's API calls are made, also where the agent logs its
 * ready line before them (the validator logs its first round, then patches).
 *
 * <p>Arguments: {@code <keystore.p12> <password> <node name> <kubeconfig to write>}; runs until
 * killed.
 */
public final class TrainingApiServer implements AutoCloseable {

    private final HttpsServer server;
    private final String nodeName;
    private final Path patchedMarker;
    private final AtomicLong resourceVersion = new AtomicLong(1);

    /** "namespace/name" of each pod created: the posted JSON */
    private final Map<String, String> pods = new ConcurrentHashMap<>();

    private final CountDownLatch closed = new CountDownLatch(1);

    private TrainingApiServer(HttpsServer server, String nodeName, Path patchedMarker) {
        this.server = server;
        this.nodeName = nodeName;
        this.patchedMarker = patchedMarker;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println(
                    "usage: TrainingApiServer <keystore.p12> <password> <node name> <kubeconfig>");
            System.exit(2);
        }
        TrainingApiServer api =
                start(Path.of(args[0]), args[1].toCharArray(), args[2], Path.of(args[3]));
        Runtime.getRuntime().addShutdownHook(new Thread(api::close));
        new CountDownLatch(1).await();
    }

    /**
     * Listens on 127.0.0.1 (a free port) and writes the pod's environment and service-account files
     * beside {@code kubeconfig}, then {@code kubeconfig}, all pointing at it.
     */
    public static TrainingApiServer start(
            Path keystore, char[] password, String nodeName, Path kubeconfig)
            throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            keys.load(in, password);
        }
        KeyManagerFactory kmf =
                KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer https =
                HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        https.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Path dir = kubeconfig.toAbsolutePath().getParent();
        TrainingApiServer api = new TrainingApiServer(https, nodeName, dir.resolve(PATCHED_MARKER));
        https.createContext("/", api::handle);
        https.start();
        int port = https.getAddress().getPort();
        String caPem = certificatePem(keys);
        Path account = Files.createDirectories(dir.resolve("serviceaccount"));
        // no newline: fabric8 sends the token file's bytes as they are
        AtomicFiles.writeString(account.resolve("token"), "training");
        AtomicFiles.writeString(account.resolve("ca.crt"), caPem);
        AtomicFiles.writeString(account.resolve("namespace"), "aot-training");
        AtomicFiles.writeString(
                dir.resolve("pod.env"), podEnv(port, account, dir.resolve("no-kubeconfig")));
        String caData =
                Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
        AtomicFiles.writeString(kubeconfig, kubeconfig("https://127.0.0.1:" + port, caData));
        return api;
    }

    /**
     * What a pod's container gets to reach this server, one {@code NAME=value} per line: the
     * kubelet's service variables and fabric8's names for the two service-account files.
     */
    static String podEnv(int port, Path serviceAccount, Path noKubeconfig) {
        return "KUBERNETES_SERVICE_HOST=127.0.0.1\n"
                + "KUBERNETES_SERVICE_PORT="
                + port
                + "\nKUBERNETES_CERTS_CA_FILE="
                + serviceAccount.resolve("ca.crt")
                + "\nKUBERNETES_AUTH_SERVICEACCOUNT_TOKEN="
                + serviceAccount.resolve("token")
                + "\nKUBECONFIG="
                + noKubeconfig
                + "\n";
    }

    /** Written beside the kubeconfig once the Node has been patched. */
    public static final String PATCHED_MARKER = "node-patched";

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        closed.countDown(); // ends the open watches first
        server.stop(0);
    }

    /** A response: status code and JSON body. */
    record Answer(int code, String body) {}

    /** The answer to a watch of nodes: a stream left open, no body of its own. */
    static final Answer WATCH = new Answer(200, "");

    private static final Pattern POD = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)");
    private static final Pattern PODS = Pattern.compile("/api/v1/namespaces/([^/]+)/pods");
    private static final Pattern EVENTS = Pattern.compile("/api/v1/namespaces/([^/]+)/events");

    /** What the server answers {@code method} on {@code uri}, with no request body. */
    Answer answer(String method, URI uri) {
        return answer(method, uri, "");
    }

    /** What the server answers {@code method} on {@code uri} with the request's {@code body}. */
    Answer answer(String method, URI uri, String body) {
        String path = uri.getPath();
        Answer pod = podAnswer(method, path, body);
        if (pod != null) {
            return pod;
        }
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        boolean watch = query.contains("watch=true") || query.contains("watch=1");
        if (path.equals("/api/v1/nodes/" + nodeName)) {
            if (method.equals("GET")) {
                return new Answer(200, node(resourceVersion.get()));
            }
            if (method.equals("PATCH") || method.equals("PUT")) {
                return new Answer(200, node(resourceVersion.incrementAndGet()));
            }
        }
        if (path.equals("/api/v1/nodes") && method.equals("GET") && !watch) {
            long rv = resourceVersion.get();
            return new Answer(
                    200,
                    "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                            + rv
                            + "\"},\"items\":["
                            + node(rv)
                            + "]}");
        }
        if (path.equals("/api/v1/nodes") && method.equals("GET") && watch) {
            return WATCH;
        }
        if (path.equals("/api/v1/pods") && method.equals("GET") && !watch) {
            return new Answer(
                    200,
                    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                            + resourceVersion.get()
                            + "\"},\"items\":[]}");
        }
        return new Answer(404, notFound(path));
    }

    /** The validator's workload pods, or null for another path. */
    private Answer podAnswer(String method, String path, String body) {
        Matcher one = POD.matcher(path);
        if (one.matches()) {
            String key = one.group(1) + "/" + one.group(2);
            String posted = pods.get(key);
            if (posted != null && method.equals("GET")) {
                return new Answer(200, withStatus(posted, SUCCEEDED));
            }
            if (posted != null && method.equals("DELETE") && pods.remove(key) != null) {
                return new Answer(200, withStatus(posted, SUCCEEDED));
            }
            return method.equals("GET") || method.equals("DELETE")
                    ? new Answer(404, notFound(path))
                    : null;
        }
        Matcher all = PODS.matcher(path);
        if (all.matches() && method.equals("POST")) {
            String name = metadataName(body);
            if (name == null) {
                return new Answer(422, status(422, "Invalid", "a pod needs metadata.name"));
            }
            String key = all.group(1) + "/" + name;
            if (pods.putIfAbsent(key, body) != null) {
                return new Answer(409, status(409, "AlreadyExists", "pod " + key + " exists"));
            }
            return new Answer(201, withStatus(body, "{\"phase\":\"Pending\"}"));
        }
        if (EVENTS.matcher(path).matches() && method.equals("GET")) {
            return new Answer(
                    200,
                    "{\"kind\":\"EventList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                            + resourceVersion.get()
                            + "\"},\"items\":[]}");
        }
        return null;
    }

    /**
     * {@code metadata.name} of a posted object: the member {@code "name"} of the object under the
     * first {@code "metadata"} key, at its own level (not a label's); null when there is none or it
     * has escapes. Enough for what fabric8 posts; the stand-in never parses anything else.
     */
    static String metadataName(String json) {
        int at = json.indexOf("\"metadata\"");
        int open = at < 0 ? -1 : json.indexOf('{', at);
        if (open < 0) {
            return null;
        }
        int depth = 0;
        for (int i = open; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) {
                    return null;
                }
            } else if (c == '"') {
                int end = stringEnd(json, i);
                if (end < 0) {
                    return null;
                }
                String text = json.substring(i + 1, end);
                int next = end + 1;
                while (next < json.length() && Character.isWhitespace(json.charAt(next))) {
                    next++;
                }
                boolean isKey = next < json.length() && json.charAt(next) == ':';
                if (depth == 1 && isKey && text.equals("name")) {
                    int value = json.indexOf('"', next);
                    int valueEnd = value < 0 ? -1 : stringEnd(json, value);
                    String name = valueEnd < 0 ? null : json.substring(value + 1, valueEnd);
                    return name == null || name.indexOf('\\') >= 0 ? null : name;
                }
                i = end;
            }
        }
        return null;
    }

    /** The index of the quote that ends the string opened at {@code open}, or -1. */
    private static int stringEnd(String json, int open) {
        for (int i = open + 1; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i;
            }
        }
        return -1;
    }

    /** A pod that ran its one container to exit 0, as the kubelet reports it. */
    private static final String SUCCEEDED =
            "{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":\"workload\",\"ready\":false,"
                    + "\"restartCount\":0,\"image\":\"aot-training\",\"imageID\":\"\","
                    + "\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}}]}";

    /** The posted object with this {@code status} (a later key wins when it had one). */
    private static String withStatus(String posted, String status) {
        String object = posted.strip();
        return object.substring(0, object.length() - 1) + ",\"status\":" + status + "}";
    }

    private static String notFound(String path) {
        return status(404, "NotFound", "the training API server does not serve " + path);
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\""
                + message.replace("\\", "\\\\").replace("\"", "\\\"")
                + "\",\"reason\":\""
                + reason
                + "\",\"code\":"
                + code
                + "}";
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body =
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String method = exchange.getRequestMethod();
            Answer a = answer(method, exchange.getRequestURI(), body);
            if (a == WATCH) {
                watch(exchange);
                return;
            }
            // before the answer: whoever sees the answer sees the marker
            if (a.code() == 200 && (method.equals("PATCH") || method.equals("PUT"))) {
                markPatched();
            }
            byte[] answer = a.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(a.code(), answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    /**
     * A WebSocket upgrade is answered without one (fabric8 then watches over HTTP); an HTTP watch
     * gets a bookmark and stays open until the server closes.
     */
    private void watch(HttpExchange exchange) throws IOException {
        if ("websocket".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Upgrade"))) {
            // 200, not 101: fabric8 then watches over HTTP at once (a 5xx it would retry for ~20 s)
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, 0); // chunked: a stream of events
        // the JDK's server sends the headers with the first chunk: a bookmark, as a real API
        // server sends to an informer (which asks for them), changing nothing
        exchange.getResponseBody()
                .write(
                        ("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Node\",\"apiVersion\":\"v1\","
                                        + "\"metadata\":{\"resourceVersion\":\""
                                        + resourceVersion.get()
                                        + "\"}}}\n")
                                .getBytes(StandardCharsets.UTF_8));
        exchange.getResponseBody().flush();
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void markPatched() throws IOException {
        if (Files.notExists(patchedMarker)) {
            AtomicFiles.writeString(patchedMarker, "");
        }
    }

    /** A GPU node as the agents see theirs: labels, allocatable GPUs, conditions, node info. */
    private String node(long rv) {
        return """
                {"kind":"Node","apiVersion":"v1","metadata":{"name":"%1$s","uid":"00000000-0000-0000-0000-00000000a07d",\
                "resourceVersion":"%2$d","creationTimestamp":"2026-01-01T00:00:00Z",\
                "labels":{"kubernetes.io/hostname":"%1$s","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64",\
                "feature.node.kubernetes.io/pci-10de.present":"true","nvidia.com/gpu.present":"true",\
                "nvidia.com/gpu.deploy.driver":"true","nvidia.com/gpu.deploy.container-toolkit":"true",\
                "nvidia.com/gpu.deploy.device-plugin":"true","nvidia.com/gpu.deploy.gpu-feature-discovery":"true",\
                "nvidia.com/gpu.deploy.dcgm-exporter":"true","nvidia.com/gpu.deploy.operator-validator":"true",\
                "nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","nvidia.com/gpu.count":"8",\
                "nvidia.com/mig.config":"all-disabled"},\
                "annotations":{"node.alpha.kubernetes.io/ttl":"0","nvidia.com/gpu-operator.validation":"driver=waiting"}},\
                "spec":{"podCIDR":"10.244.1.0/24","taints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}]},\
                "status":{"capacity":{"cpu":"64","memory":"528280000Ki","pods":"110","nvidia.com/gpu":"8"},\
                "allocatable":{"cpu":"64","memory":"528177600Ki","pods":"110","nvidia.com/gpu":"8"},\
                "conditions":[{"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-01-01T00:00:00Z",\
                "lastTransitionTime":"2026-01-01T00:00:00Z","reason":"KubeletHasSufficientMemory","message":"ok"},\
                {"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:00:00Z",\
                "lastTransitionTime":"2026-01-01T00:00:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"}],\
                "addresses":[{"type":"InternalIP","address":"10.0.0.7"},{"type":"Hostname","address":"%1$s"}],\
                "nodeInfo":{"machineID":"a07d","systemUUID":"a07d","bootID":"a07d","kernelVersion":"6.8.0-45-generic",\
                "osImage":"Ubuntu 24.04.1 LTS","containerRuntimeVersion":"containerd://1.7.22","kubeletVersion":"v1.32.0",\
                "kubeProxyVersion":"v1.32.0","operatingSystem":"linux","architecture":"amd64"}}}"""
                .formatted(nodeName, rv);
    }

    private static String certificatePem(KeyStore keys) throws GeneralSecurityException {
        String alias = keys.aliases().nextElement();
        Certificate cert = keys.getCertificate(alias);
        return "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(cert.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    private static String kubeconfig(String url, String caData) {
        return """
                apiVersion: v1
                kind: Config
                clusters: [{name: training, cluster: {server: "%s", certificate-authority-data: %s}}]
                users: [{name: training, user: {token: training}}]
                contexts: [{name: training, context: {cluster: training, user: training, namespace: aot-training}}]
                current-context: training
                """
                .formatted(url, caData);
    }
}
