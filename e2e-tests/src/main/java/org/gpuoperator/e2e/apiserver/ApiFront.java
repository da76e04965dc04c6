package org.gpuoperator.e2e.apiserver;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.net.PfxOptions;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The simulated API server's front door: answers what fabric8's mock server lacks (discovery,
 * OpenAPI, Table answers, HTTP streaming watches, pod logs, the eviction subresource, TLS with our
 * own certificate) and passes everything else, WebSocket watches included, to the mock. The mock
 * only speaks WebSocket watches and whole (not streamed) bodies, so this cannot be a dispatcher
 * inside it.
 */
public final class ApiFront implements AutoCloseable {

    private static final Set<String> NOT_FORWARDED =
            Set.of(
                    "host",
                    "connection",
                    "content-length",
                    "expect",
                    "upgrade",
                    "transfer-encoding",
                    "keep-alive",
                    "accept-encoding",
                    "te",
                    "trailer",
                    "proxy-connection",
                    "http2-settings");
    private static final List<String> WEBSOCKET_PROTOCOLS =
            List.of(
                    "v4.channel.k8s.io",
                    "v3.channel.k8s.io",
                    "v2.channel.k8s.io",
                    "channel.k8s.io");

    private final String backend;
    private volatile PodLogSource logs;
    private final Vertx vertx;
    private final HttpServer server;
    private final HttpClient http;
    private final ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
    private final EvictionSubresource evictions;

    /** Every distinct call so far, for the RBAC usage test: a set stays small, however busy. */
    private final Set<ApiCall> calls = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private ApiFront(
            String backend, PodLogSource logs, Vertx vertx, HttpServer server, HttpClient http) {
        this.backend = backend;
        this.logs = logs;
        this.vertx = vertx;
        this.server = server;
        this.http = http;
        this.evictions = new EvictionSubresource(backend, http);
    }

    /**
     * @param backend the mock server, {@code http://127.0.0.1:<port>}
     * @param tls the server's key and certificate, null for plain HTTP
     */
    public static ApiFront start(
            String backend, String bindAddress, int port, TlsMaterial tls, PodLogSource logs) {
        Vertx vertx = Vertx.vertx();
        HttpServerOptions options =
                new HttpServerOptions()
                        .setHost(bindAddress)
                        .setPort(port)
                        .setWebSocketSubProtocols(WEBSOCKET_PROTOCOLS)
                        .setCompressionSupported(false);
        if (tls != null) {
            options.setSsl(true)
                    .setKeyCertOptions(
                            new PfxOptions()
                                    .setPath(tls.keyStore().toString())
                                    .setPassword(tls.keyStorePassword()));
        }
        HttpClient http =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5))
                        .build();
        ApiFront front = new ApiFront(backend, logs, vertx, vertx.createHttpServer(options), http);
        front.server.requestHandler(front::handle);
        try {
            front.server
                    .listen()
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw new IllegalStateException(
                    "API server could not listen on " + bindAddress + ":" + port + ": " + e, e);
        }
        return front;
    }

    /** Where pod logs come from from now on. */
    public void podLogSource(PodLogSource source) {
        this.logs = java.util.Objects.requireNonNull(source, "source");
    }

    public int port() {
        return server.actualPort();
    }

    /** The distinct calls to resources answered so far, each with its caller. */
    public Set<ApiCall> calls() {
        return Set.copyOf(calls);
    }

    private void handle(HttpServerRequest req) {
        ApiCall.of(
                        ServiceAccountTokens.caller(req.getHeader("Authorization")),
                        req.method().name(),
                        req.path(),
                        query(req.query()))
                .ifPresent(calls::add);
        if ("websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
            proxyWebSocket(req);
            return;
        }
        req.body()
                .onSuccess(
                        body ->
                                work.submit(
                                        () -> {
                                            try {
                                                serve(req, body);
                                            } catch (java.net.http.HttpTimeoutException e) {
                                                fail(
                                                        req.response(),
                                                        504,
                                                        "Timeout",
                                                        "the mock API server did not answer "
                                                                + req.method()
                                                                + " "
                                                                + req.path()
                                                                + " within 30 s");
                                            } catch (Exception e) {
                                                fail(
                                                        req.response(),
                                                        e instanceof IllegalArgumentException
                                                                ? 400
                                                                : 500,
                                                        e instanceof IllegalArgumentException
                                                                ? "BadRequest"
                                                                : "InternalError",
                                                        String.valueOf(e.getMessage()));
                                            }
                                        }))
                .onFailure(e -> fail(req.response(), 400, "BadRequest", e.getMessage()));
    }

    private void serve(HttpServerRequest req, Buffer body) throws Exception {
        String path = req.path();
        Map<String, String> query = query(req.query());
        boolean get = req.method().name().equals("GET");
        if (get
                && (path.equals("/api")
                        || path.equals("/apis")
                        || path.startsWith("/api/")
                        || path.startsWith("/apis/"))) {
            Optional<Map<String, Object>> doc = discovery(path);
            if (doc != null) {
                if (doc.isPresent()) {
                    json(req.response(), 200, doc.get());
                } else {
                    fail(
                            req.response(),
                            404,
                            "NotFound",
                            "the server could not find the requested resource");
                }
                return;
            }
        }
        if (get && path.equals("/version")) {
            json(
                    req.response(),
                    200,
                    Map.of(
                            "major",
                            "1",
                            "minor",
                            "32",
                            "gitVersion",
                            "v1.32.0-simulated",
                            "platform",
                            "linux/amd64"));
            return;
        }
        if (get && (path.equals("/healthz") || path.equals("/livez") || path.equals("/readyz"))) {
            req.response().putHeader("Content-Type", "text/plain").end("ok");
            return;
        }
        if (get && path.startsWith("/openapi/")) {
            Optional<Map<String, Object>> doc =
                    path.equals("/openapi/v3")
                            ? Optional.of(OpenApi.root(discovery()))
                            : path.startsWith("/openapi/v3/")
                                    ? OpenApi.groupVersion(
                                            discovery(), path.substring("/openapi/v3/".length()))
                                    : Optional
                                            .empty(); // v2 is protobuf-first; kubectl uses v3 when
            // it exists
            if (doc.isPresent()) {
                json(req.response(), 200, doc.get());
            } else {
                fail(
                        req.response(),
                        404,
                        "NotFound",
                        "the server could not find the requested resource");
            }
            return;
        }
        Optional<ApiPath> api = ApiPath.parse(path);
        if (get
                && api.isPresent()
                && "log".equals(api.get().subresource())
                && api.get().resource().equals("pods")) {
            podLog(req, api.get(), query);
            return;
        }
        boolean watch = "true".equals(query.get("watch")) || "1".equals(query.get("watch"));
        boolean table = Tables.wantsTable(req.getHeader("Accept"));
        if (get && watch) {
            watch(req, api.orElse(null), table, query);
            return;
        }
        if (get && table && api.isPresent()) {
            tableGet(req, api.get(), query);
            return;
        }
        String contentType = req.getHeader("Content-Type");
        if (contentType != null && contentType.startsWith("application/vnd.kubernetes.protobuf")) {
            // typed kubectl commands (create namespace, create configmap) send protobuf, which the
            // mock cannot read
            // (it would never answer); YAML through create -f / apply -f works
            fail(
                    req.response(),
                    415,
                    "UnsupportedMediaType",
                    "the simulated API server reads JSON bodies only, not "
                            + contentType
                            + "; use kubectl create -f / apply -f with YAML or JSON");
            return;
        }
        if (req.method().name().equals("POST")
                && api.isPresent()
                && api.get().namespace() != null
                && api.get().name() != null
                && api.get().group().isEmpty()
                && api.get().resource().equals("pods")
                && "eviction".equals(api.get().subresource())) {
            EvictionSubresource.Answer answer = evictions.evict(api.get(), body.toString(), query);
            json(req.response(), answer.code(), answer.body());
            return;
        }
        if (req.method().name().equals("PATCH")
                && StrategicMergePatch.isStrategic(req.getHeader("Content-Type"))
                && api.isPresent()) {
            strategicPatch(req, body);
            return;
        }
        forward(req, body);
    }

    /**
     * The mock answers 415 to strategic merge patches: apply it here and store the result with a
     * PUT.
     */
    private void strategicPatch(HttpServerRequest req, Buffer body)
            throws IOException, InterruptedException {
        HttpResponse<String> current = backendGet(req.path());
        if (current.statusCode() != 200) {
            reply(req.response(), current);
            return;
        }
        Map<String, Object> patched =
                StrategicMergePatch.apply(Json.parse(current.body()), Json.parse(body.toString()));
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(backend + req.uri()))
                                .header("Content-Type", "application/json")
                                .header("Accept", "application/json")
                                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(patched)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        reply(req.response(), r);
    }

    // ---- discovery and OpenAPI
    // ----------------------------------------------------------------------------------

    /** Read on every request, so a CRD created a moment ago is served. */
    private Discovery discovery() throws IOException, InterruptedException {
        return Discovery.of(crds());
    }

    private List<Map<String, Object>> crds() throws IOException, InterruptedException {
        HttpResponse<String> r =
                backendGet("/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
        return r.statusCode() == 200 ? Json.maps(Json.parse(r.body()), "items") : List.of();
    }

    /**
     * The discovery document at {@code path}; empty for a discovery path with nothing there; null
     * for other paths.
     */
    private Optional<Map<String, Object>> discovery(String path)
            throws IOException, InterruptedException {
        String[] s = path.replaceAll("/+$", "").split("/");
        if (path.equals("/api")) {
            return Optional.of(discovery().coreVersions("127.0.0.1:" + port()));
        }
        if (path.equals("/apis")) {
            return Optional.of(discovery().groupList());
        }
        if (s.length == 3 && s[1].equals("api")) {
            return discovery().resourceList("", s[2]);
        }
        if (s.length == 3 && s[1].equals("apis")) {
            return discovery().group(s[2]);
        }
        if (s.length == 4 && s[1].equals("apis")) {
            return discovery().resourceList(s[2], s[3]);
        }
        return null;
    }

    // ---- Tables
    // -------------------------------------------------------------------------------------------------

    private PrinterColumns printer(ApiPath p, String kind)
            throws IOException, InterruptedException {
        List<Map<String, Object>> crds = crds();
        Optional<ApiResource> type = Discovery.of(crds).find(p.group(), p.version(), p.resource());
        for (Map<String, Object> crd : crds) {
            Map<String, Object> spec = Json.map(crd, "spec");
            if (p.group().equals(spec.get("group"))
                    && p.resource().equals(Json.map(spec, "names").get("plural"))) {
                return PrinterColumns.forCrd(CrdResources.printerColumns(crd, p.version()));
            }
        }
        return PrinterColumns.forBuiltin(
                type.map(ApiResource::kind).orElse(kind == null ? "" : kind));
    }

    private void tableGet(HttpServerRequest req, ApiPath p, Map<String, String> query)
            throws Exception {
        Tables.IncludeObject include = Tables.IncludeObject.parse(query.get("includeObject"));
        HttpResponse<String> r = backendGet(req.uri());
        if (r.statusCode() != 200 || p.subresource() != null) {
            reply(req.response(), r);
            return;
        }
        Map<String, Object> obj = Json.parse(r.body());
        boolean list = p.name() == null && obj.containsKey("items");
        List<Map<String, Object>> objects = list ? Json.maps(obj, "items") : List.of(obj);
        String kind =
                list
                        ? String.valueOf(obj.get("kind")).replaceAll("List$", "")
                        : String.valueOf(obj.get("kind"));
        Map<String, Object> listMeta = list ? Json.map(obj, "metadata") : Map.of();
        json(
                req.response(),
                200,
                Tables.table(printer(p, kind), objects, include, Instant.now(), listMeta));
    }

    // ---- watches
    // ------------------------------------------------------------------------------------------------

    /**
     * An HTTP streaming watch (what kubectl and client-go use), fed by a WebSocket watch on the
     * mock.
     */
    private void watch(HttpServerRequest req, ApiPath p, boolean table, Map<String, String> query)
            throws Exception {
        PrinterColumns printer = table && p != null ? printer(p, null) : null;
        Tables.IncludeObject include = Tables.IncludeObject.parse(query.get("includeObject"));
        HttpServerResponse resp = req.response();
        AtomicBoolean closed = new AtomicBoolean();
        // the head goes out first: the mock sends events as soon as the WebSocket is open
        resp.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
        resp.writeHead();
        StringBuilder partial = new StringBuilder();
        CompletableFuture<WebSocket> ws =
                http.newWebSocketBuilder()
                        .buildAsync(
                                URI.create(backend.replaceFirst("^http", "ws") + req.uri()),
                                new WebSocket.Listener() {
                                    @Override
                                    public CompletionStage<?> onText(
                                            WebSocket w, CharSequence data, boolean last) {
                                        partial.append(data);
                                        if (last) {
                                            String event = partial.toString();
                                            partial.setLength(0);
                                            try {
                                                resp.write(
                                                        convertEvent(event, printer, include)
                                                                + "\n");
                                            } catch (RuntimeException e) {
                                                closed.set(true);
                                                w.abort();
                                                resp.reset();
                                            }
                                        }
                                        w.request(1);
                                        return null;
                                    }

                                    @Override
                                    public CompletionStage<?> onClose(
                                            WebSocket w, int status, String reason) {
                                        if (closed.compareAndSet(false, true)) {
                                            resp.end();
                                        }
                                        return null;
                                    }

                                    @Override
                                    public void onError(WebSocket w, Throwable error) {
                                        if (closed.compareAndSet(false, true)) {
                                            resp.reset();
                                        }
                                    }
                                });
        resp.closeHandler(
                v -> {
                    closed.set(true);
                    ws.thenAccept(WebSocket::abort);
                });
        ws.exceptionally(
                e -> {
                    if (closed.compareAndSet(false, true)) {
                        resp.end(
                                Json.write(
                                                Map.of(
                                                        "type",
                                                        "ERROR",
                                                        "object",
                                                        Map.of(
                                                                "kind",
                                                                "Status",
                                                                "apiVersion",
                                                                "v1",
                                                                "status",
                                                                "Failure",
                                                                "code",
                                                                500,
                                                                "message",
                                                                "watch could not start: "
                                                                        + e.getMessage())))
                                        + "\n");
                    }
                    return null;
                });
        String timeout = query.get("timeoutSeconds");
        if (timeout != null) {
            vertx.setTimer(
                    Math.max(1, Long.parseLong(timeout)) * 1000L,
                    t -> {
                        if (closed.compareAndSet(false, true)) {
                            ws.thenAccept(WebSocket::abort);
                            resp.end();
                        }
                    });
        }
    }

    private static String convertEvent(
            String event, PrinterColumns printer, Tables.IncludeObject include) {
        if (printer == null) {
            return event.strip();
        }
        Map<String, Object> e = Json.parse(event);
        Map<String, Object> obj = Json.map(e, "object");
        if (!"Status".equals(obj.get("kind")) && !obj.isEmpty()) {
            e.put("object", Tables.table(printer, List.of(obj), include, Instant.now(), Map.of()));
        }
        return Json.write(e);
    }

    /** Passes a WebSocket (fabric8's watches) through to the mock, frame by frame. */
    private void proxyWebSocket(HttpServerRequest req) {
        req.pause();
        WebSocket.Builder b = http.newWebSocketBuilder();
        String auth = req.getHeader("Authorization");
        if (auth != null) {
            b.header("Authorization", auth);
        }
        String protocols = req.getHeader("Sec-WebSocket-Protocol");
        if (protocols != null && !protocols.isBlank()) {
            String[] ps = protocols.split("\\s*,\\s*");
            b.subprotocols(ps[0], java.util.Arrays.copyOfRange(ps, 1, ps.length));
        }
        req.toWebSocket()
                .onFailure(e -> {})
                .onSuccess(
                        client -> {
                            client.pause();
                            StringBuilder text = new StringBuilder();
                            List<byte[]> binary = new ArrayList<>();
                            b.buildAsync(
                                            URI.create(
                                                    backend.replaceFirst("^http", "ws")
                                                            + req.uri()),
                                            new WebSocket.Listener() {
                                                @Override
                                                public CompletionStage<?> onText(
                                                        WebSocket w,
                                                        CharSequence data,
                                                        boolean last) {
                                                    text.append(data);
                                                    if (last) {
                                                        client.writeTextMessage(text.toString());
                                                        text.setLength(0);
                                                    }
                                                    w.request(1);
                                                    return null;
                                                }

                                                @Override
                                                public CompletionStage<?> onBinary(
                                                        WebSocket w,
                                                        ByteBuffer data,
                                                        boolean last) {
                                                    byte[] bytes = new byte[data.remaining()];
                                                    data.get(bytes);
                                                    binary.add(bytes);
                                                    if (last) {
                                                        Buffer all = Buffer.buffer();
                                                        binary.forEach(all::appendBytes);
                                                        binary.clear();
                                                        client.writeBinaryMessage(all);
                                                    }
                                                    w.request(1);
                                                    return null;
                                                }

                                                @Override
                                                public CompletionStage<?> onClose(
                                                        WebSocket w, int status, String reason) {
                                                    client.close((short) status, reason);
                                                    return null;
                                                }

                                                @Override
                                                public void onError(WebSocket w, Throwable error) {
                                                    client.close(
                                                            (short) 1011,
                                                            "backend: " + error.getMessage());
                                                }
                                            })
                                    .whenComplete(
                                            (w, e) -> {
                                                if (e != null) {
                                                    client.close(
                                                            (short) 1011,
                                                            "backend: " + e.getMessage());
                                                    return;
                                                }
                                                pipeFromClient(client, w);
                                                client.resume();
                                            });
                        });
    }

    private static void pipeFromClient(ServerWebSocket client, WebSocket backend) {
        client.textMessageHandler(t -> backend.sendText(t, true));
        client.binaryMessageHandler(
                bin -> backend.sendBinary(ByteBuffer.wrap(bin.getBytes()), true));
        client.closeHandler(
                v -> backend.sendClose(WebSocket.NORMAL_CLOSURE, "").exceptionally(x -> null));
    }

    // ---- logs
    // ---------------------------------------------------------------------------------------------------

    private void podLog(HttpServerRequest req, ApiPath p, Map<String, String> query)
            throws Exception {
        HttpResponse<String> r =
                backendGet("/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name());
        if (r.statusCode() != 200) {
            reply(req.response(), r);
            return;
        }
        Map<String, Object> pod = Json.parse(r.body());
        List<String> containers =
                Json.maps(Json.map(pod, "spec"), "containers").stream()
                        .map(c -> String.valueOf(c.get("name")))
                        .toList();
        String container = query.get("container");
        if (container == null) {
            if (containers.size() != 1) {
                fail(
                        req.response(),
                        400,
                        "BadRequest",
                        "a container name must be specified for pod "
                                + p.name()
                                + ", choose one of: "
                                + containers);
                return;
            }
            container = containers.getFirst();
        } else if (!containers.contains(container)) {
            fail(
                    req.response(),
                    400,
                    "BadRequest",
                    "container " + container + " is not valid for pod " + p.name());
            return;
        }
        Map<String, Object> meta = Json.map(pod, "metadata");
        PodLogSource.PodRef ref =
                new PodLogSource.PodRef(
                        p.namespace(),
                        p.name(),
                        Json.string(meta, "uid"),
                        Json.string(Json.map(pod, "spec"), "nodeName"));
        boolean previous = "true".equals(query.get("previous"));
        Integer tail =
                query.containsKey("tailLines") ? Integer.valueOf(query.get("tailLines")) : null;
        List<String> lines;
        try {
            lines = logs.lines(ref, container, previous);
        } catch (NoSuchElementException e) {
            fail(req.response(), 404, "NotFound", e.getMessage());
            return;
        }
        HttpServerResponse resp = req.response().putHeader("Content-Type", "text/plain");
        List<String> first = CriLog.tail(lines, tail);
        if (!"true".equals(query.get("follow"))) {
            resp.end(first.isEmpty() ? "" : String.join("\n", first) + "\n");
            return;
        }
        AtomicBoolean gone = new AtomicBoolean();
        resp.setChunked(true).closeHandler(v -> gone.set(true));
        resp.write(first.isEmpty() ? "" : String.join("\n", first) + "\n");
        int sent = lines.size();
        // follow: poll the source; ends when the client goes away or the pod is deleted
        while (!gone.get()) {
            Thread.sleep(500);
            List<String> now;
            try {
                now = logs.lines(ref, container, previous);
            } catch (NoSuchElementException e) {
                break;
            }
            if (now.size() > sent) {
                resp.write(String.join("\n", now.subList(sent, now.size())) + "\n");
                sent = now.size();
            } else if (backendGet("/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name())
                            .statusCode()
                    == 404) {
                break;
            }
        }
        if (!gone.get()) {
            resp.end();
        }
    }

    // ---- plumbing
    // -----------------------------------------------------------------------------------------------

    private HttpResponse<String> backendGet(String uri) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(backend + uri))
                        .header("Accept", "application/json")
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void forward(HttpServerRequest req, Buffer body)
            throws IOException, InterruptedException {
        String uri = req.uri();
        String selector = query(req.query()).get("fieldSelector");
        if (selector != null && req.path().endsWith("/events")) {
            // kubectl describe asks for involvedObject.namespace, which the mock cannot read and
            // warns about on
            // every call; the URL's namespace already scopes namespaced objects' events
            uri =
                    req.path()
                            + "?"
                            + withQueryParam(
                                    req.query(),
                                    "fieldSelector",
                                    dropRequirement(selector, "involvedObject.namespace"));
        }
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(backend + uri))
                        .method(
                                req.method().name(),
                                body.length() == 0
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofByteArray(body.getBytes()));
        req.headers()
                .forEach(
                        (k, v) -> {
                            if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT))) {
                                b.header(k, v);
                            }
                        });
        // a request the mock fails on is never answered: give up rather than hang the client
        b.timeout(Duration.ofSeconds(30));
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        HttpServerResponse resp = req.response().setStatusCode(r.statusCode());
        r.headers()
                .map()
                .forEach(
                        (k, vs) -> {
                            if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT))
                                    && !k.startsWith(":")) {
                                resp.putHeader(k, vs);
                            }
                        });
        byte[] out = r.body();
        boolean json = out.length > 0 && out[0] == '{';
        if (json && r.headers().firstValue("Content-Type").isEmpty()) {
            // without it, typed clients (kubectl describe) take the body for the protobuf they
            // asked for first
            resp.putHeader("Content-Type", "application/json");
        }
        Optional<ApiPath> p = ApiPath.parse(req.path());
        if (json
                && r.statusCode() == 200
                && req.method().name().equals("GET")
                && p.isPresent()
                && p.get().name() == null) {
            out = typedList(out, p.get());
        }
        resp.end(Buffer.buffer(out));
    }

    /** The mock answers filtered lists as kind List; typed clients want {@code <Kind>List}. */
    private byte[] typedList(byte[] body, ApiPath p) throws IOException, InterruptedException {
        Map<String, Object> list = Json.parse(new String(body, StandardCharsets.UTF_8));
        if (!"List".equals(list.get("kind"))) {
            return body;
        }
        Optional<ApiResource> type = discovery().find(p.group(), p.version(), p.resource());
        if (type.isEmpty()) {
            return body;
        }
        list.put("kind", type.get().kind() + "List");
        list.put("apiVersion", type.get().groupVersion());
        return Json.write(list).getBytes(StandardCharsets.UTF_8);
    }

    private static void reply(HttpServerResponse resp, HttpResponse<String> r) {
        resp.setStatusCode(r.statusCode())
                .putHeader("Content-Type", "application/json")
                .end(r.body());
    }

    private static void json(HttpServerResponse resp, int code, Object body) {
        resp.setStatusCode(code)
                .putHeader("Content-Type", "application/json")
                .end(Json.write(body));
    }

    private static void fail(HttpServerResponse resp, int code, String reason, String message) {
        if (resp.headWritten()) {
            resp.reset();
            return;
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        status.put("status", "Failure");
        status.put("message", message);
        status.put("reason", reason);
        status.put("code", code);
        json(resp, code, status);
    }

    /**
     * A field selector without the requirements on {@code field} ({@code a=1,b=2} without b: {@code
     * a=1}).
     */
    static String dropRequirement(String selector, String field) {
        return String.join(
                ",",
                java.util.Arrays.stream(selector.split(","))
                        .filter(
                                r ->
                                        !r.strip()
                                                .matches(
                                                        java.util.regex.Pattern.quote(field)
                                                                + "\\s*(==|!=|=).*"))
                        .toList());
    }

    /**
     * The raw query string with one parameter's value replaced (encoded), or removed when the value
     * is empty.
     */
    static String withQueryParam(String rawQuery, String name, String value) {
        List<String> parts = new ArrayList<>();
        for (String kv : rawQuery.split("&")) {
            String k = URLDecoder.decode(kv.split("=", 2)[0], StandardCharsets.UTF_8);
            if (!k.equals(name) && !kv.isEmpty()) {
                parts.add(kv);
            }
        }
        if (!value.isEmpty()) {
            parts.add(name + "=" + java.net.URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
        return String.join("&", parts);
    }

    static Map<String, String> query(String q) {
        Map<String, String> m = new HashMap<>();
        if (q == null) {
            return m;
        }
        for (String kv : q.split("&")) {
            if (kv.isEmpty()) {
                continue;
            }
            int eq = kv.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
            m.put(k, eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return m;
    }

    @Override
    public void close() {
        work.shutdownNow();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway
        }
        http.close();
    }
}
