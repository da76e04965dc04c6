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
                    ExecStream.PROTOCOL_V5,
                    "v4.channel.k8s.io",
                    "v3.channel.k8s.io",
                    "v2.channel.k8s.io",
                    "channel.k8s.io");

    private final String backend;
    private volatile PodLogSource logs;
    private volatile PodExec execs = PodExec.NONE;
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

    /** Where {@code kubectl exec} runs commands from now on. */
    public void podExec(PodExec exec) {
        this.execs = java.util.Objects.requireNonNull(exec, "exec");
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
        Optional<ApiPath> exec = ApiPath.parse(req.path());
        if (exec.isPresent()
                && exec.get().group().isEmpty()
                && exec.get().resource().equals("pods")
                && exec.get().name() != null
                && "exec".equals(exec.get().subresource())) {
            req.pause();
            io.vertx.core.Context context = vertx.getOrCreateContext();
            work.submit(() -> exec(req, exec.get(), context));
            return;
        }
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
        Optional<PodProxy.Target> proxied = PodProxy.parse(path);
        if (proxied.isPresent()) {
            podProxy(req, proxied.get());
            return;
        }
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
        String fieldSelector = query.getOrDefault("fieldSelector", "");
        if (get && api.isPresent() && api.get().name() == null && !fieldSelector.isBlank()) {
            selectedList(req, api.get(), query, table);
            return;
        }
        if (get && table && api.isPresent()) {
            tableGet(req, api.get(), query);
            return;
        }
        String contentType = req.getHeader("Content-Type");
        if (ProtobufBodies.isProtobuf(contentType) && body.length() > 0) {
            // typed kubectl commands (create namespace|configmap|secret|deployment) send protobuf,
            // which the mock cannot read (it would never answer): it gets the same object as JSON
            body =
                    Buffer.buffer(
                            Json.write(ProtobufBodies.decode(body.getBytes()))
                                    .getBytes(StandardCharsets.UTF_8));
            contentType = "application/json";
        }
        if (req.method().name().equals("POST")
                && api.isPresent()
                && api.get().group().isEmpty()
                && api.get().resource().equals("secrets")
                && api.get().name() == null
                && body.length() > 0) {
            // kube-apiserver's default, which kubectl create secret generic relies on
            Map<String, Object> secret = Json.parse(body.toString());
            if (secret.get("type") == null || "".equals(secret.get("type"))) {
                secret.put("type", "Opaque");
                body = Buffer.buffer(Json.write(secret).getBytes(StandardCharsets.UTF_8));
            }
        }
        if (req.method().name().equals("POST") && req.path().equals(SelfSubjectRulesReviews.PATH)) {
            selfSubjectRulesReview(req, body);
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
        boolean dryRun = "All".equals(query.get("dryRun")) || dryRunInDeleteOptions(req, body);
        if (api.isPresent()
                && api.get().group().equals("apps")
                && ScaleSubresource.SCALABLE.contains(api.get().resource())
                && api.get().name() != null
                && "scale".equals(api.get().subresource())) {
            scale(req, body, contentType, dryRun);
            return;
        }
        if (req.method().name().equals("POST")
                && api.isPresent()
                && api.get().group().isEmpty()
                && api.get().resource().equals("serviceaccounts")
                && api.get().name() != null
                && "token".equals(api.get().subresource())) {
            HttpResponse<String> sa = backendGet(parentPath(req.path()));
            if (sa.statusCode() != 200) {
                reply(req, sa);
                return;
            }
            json(
                    req.response(),
                    201,
                    ServiceAccountTokens.tokenRequest(
                            body.length() == 0 ? Map.of() : Json.parse(body.toString()),
                            api.get().namespace(),
                            api.get().name(),
                            Instant.now()));
            return;
        }
        if (req.method().name().equals("PATCH") && api.isPresent()) {
            Optional<PatchType> type = PatchType.of(contentType);
            if (type.isPresent()) {
                patch(req, body, type.get(), dryRun);
                return;
            }
        }
        if (req.method().name().equals("DELETE")
                && api.isPresent()
                && api.get().name() == null
                && !fieldSelector.isBlank()) {
            // the mock would ignore a field it cannot read, and delete the whole collection
            deleteSelected(req, api.get(), query, body, dryRun);
            return;
        }
        if (dryRun && api.isPresent() && api.get().subresource() == null) {
            dryRunWrite(req, api.get(), body);
            return;
        }
        if (req.method().name().equals("DELETE")
                && api.isPresent()
                && api.get().name() != null
                && api.get().subresource() == null
                && OrphanPropagation.requested(query, body.toString())) {
            deleteOrphaning(req, api.get(), body, contentType);
            return;
        }
        forward(req, body, contentType);
    }

    /**
     * A delete with orphan propagation, as the API server and its garbage collector do it: the
     * owner gets the {@code orphan} finalizer and is marked for deletion first (its controller
     * stops acting on it: a DaemonSet being deleted makes no pod for a node whose pod was just
     * orphaned), then its dependents lose their references to it, then the request is answered (the
     * owner, marked) and the finalizer goes, and with it the owner. One at a time, as the collector
     * is one: a second delete of the same owner must not take the finalizer away while the first
     * still orphans.
     */
    private synchronized void deleteOrphaning(
            HttpServerRequest req, ApiPath owner, Buffer body, String type)
            throws IOException, InterruptedException {
        String path = parentPathOf(owner);
        boolean marked =
                orphanFinalizer(path, true)
                        && http.send(
                                                HttpRequest.newBuilder(URI.create(backend + path))
                                                        .timeout(Duration.ofSeconds(30))
                                                        .DELETE()
                                                        .build(),
                                                HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 200;
        orphanDependents(owner);
        forward(req, body, type); // the mock keeps the marked owner: its finalizer is there
        if (marked) {
            orphanFinalizer(path, false);
        }
    }

    /**
     * Adds or removes the {@code orphan} finalizer of the object at {@code path}, again on the
     * object as it is now after a 409; false when there is no such object or the write failed.
     */
    private boolean orphanFinalizer(String path, boolean present)
            throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 20; attempt++) {
            HttpResponse<String> live = backendGet(path);
            if (live.statusCode() != 200) {
                return false;
            }
            Map<String, Object> obj = Json.parse(live.body());
            Map<String, Object> meta = Json.map(obj, "metadata");
            List<String> finalizers = new ArrayList<>(Json.strings(meta, "finalizers"));
            if (finalizers.contains(ORPHAN_FINALIZER) == present) {
                return true;
            }
            if (present) {
                finalizers.add(ORPHAN_FINALIZER);
            } else {
                finalizers.remove(ORPHAN_FINALIZER);
            }
            meta.put("finalizers", finalizers);
            int status = backendPut(path, obj);
            if (status != 409) {
                return status == 200;
            }
        }
        return false;
    }

    /** The finalizer the API server gives an owner deleted with orphan propagation. */
    static final String ORPHAN_FINALIZER = "orphan";

    /**
     * What the garbage collector does before an owner deleted with orphan propagation goes: its
     * dependents (pods, ReplicaSets of its namespace) lose their references to it, so they stay.
     */
    private void orphanDependents(ApiPath owner) throws IOException, InterruptedException {
        HttpResponse<String> live = backendGet(parentPathOf(owner));
        if (live.statusCode() != 200) {
            return;
        }
        String uid = Json.string(Json.map(Json.parse(live.body()), "metadata"), "uid");
        if (uid == null || owner.namespace() == null) {
            return;
        }
        for (String kind :
                List.of(
                        "/api/v1/namespaces/" + owner.namespace() + "/pods",
                        "/apis/apps/v1/namespaces/" + owner.namespace() + "/replicasets")) {
            for (Map<String, Object> dependent : items(kind)) {
                orphan(kind + "/" + Json.name(dependent), dependent, uid);
            }
        }
    }

    /**
     * Removes one dependent's reference to {@code ownerUid}. A write that lost a race (409: the
     * kubelet updated the pod's status meanwhile) is done again on the dependent as it is now: a
     * reference left behind would have the garbage collector delete the dependent once the owner is
     * gone, which is what orphaning must prevent.
     */
    private void orphan(String path, Map<String, Object> dependent, String ownerUid)
            throws IOException, InterruptedException {
        Map<String, Object> current = dependent;
        for (int attempt = 0; attempt < 20; attempt++) {
            Optional<Map<String, Object>> orphaned =
                    OrphanPropagation.withoutOwner(current, ownerUid);
            if (orphaned.isEmpty()) {
                return;
            }
            int status = backendPut(path, orphaned.get());
            if (status != 409) {
                return; // written, or gone (404)
            }
            HttpResponse<String> now = backendGet(path);
            if (now.statusCode() != 200) {
                return;
            }
            current = Json.parse(now.body());
        }
    }

    /** The URL path of the object an ApiPath names. */
    private static String parentPathOf(ApiPath p) {
        return (p.group().isEmpty() ? "/api/" : "/apis/" + p.group() + "/")
                + p.version()
                + (p.namespace() == null ? "" : "/namespaces/" + p.namespace())
                + "/"
                + p.resource()
                + "/"
                + p.name();
    }

    /** A delete of a collection with a field selector: each selected object deleted here. */
    private void deleteSelected(
            HttpServerRequest req,
            ApiPath p,
            Map<String, String> query,
            Buffer body,
            boolean dryRun)
            throws IOException, InterruptedException {
        Selected selected = selected(req, p, query, "dryRun");
        if (selected == null) {
            return;
        }
        for (Map<String, Object> item : selected.items()) {
            if (dryRun) {
                continue;
            }
            http.send(
                    HttpRequest.newBuilder(URI.create(backend + req.path() + "/" + Json.name(item)))
                            .header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(30))
                            .method(
                                    "DELETE",
                                    body.length() == 0
                                            ? HttpRequest.BodyPublishers.noBody()
                                            : HttpRequest.BodyPublishers.ofByteArray(
                                                    body.getBytes()))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
        }
        json(req.response(), 200, typedList(p, selected));
    }

    /** kubectl delete --dry-run=server says so in the DeleteOptions body, not the query. */
    private static boolean dryRunInDeleteOptions(HttpServerRequest req, Buffer body) {
        if (!req.method().name().equals("DELETE") || body.length() == 0) {
            return false;
        }
        try {
            return Json.strings(Json.parse(body.toString()), "dryRun").contains("All");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The path of the object a subresource path belongs to. */
    private static String parentPath(String path) {
        return path.replaceAll("/+$", "").replaceAll("/[^/]+$", "");
    }

    /** A SelfSubjectRulesReview answered from the stored RBAC objects, as kube-apiserver does. */
    private void selfSubjectRulesReview(HttpServerRequest req, Buffer body)
            throws IOException, InterruptedException {
        Map<String, Object> review = Json.parse(body.toString());
        Object spec = review.get("spec");
        String ns =
                spec instanceof Map<?, ?> m && m.get("namespace") != null
                        ? String.valueOf(m.get("namespace"))
                        : "default";
        String rbac = "/apis/rbac.authorization.k8s.io/v1/";
        Map<String, Map<String, Object>> roles = new java.util.HashMap<>();
        for (Map<String, Object> r : items(rbac + "namespaces/" + ns + "/roles")) {
            roles.put(String.valueOf(Json.map(r, "metadata").get("name")), r);
        }
        Map<String, Map<String, Object>> clusterRoles = new java.util.HashMap<>();
        for (Map<String, Object> r : items(rbac + "clusterroles")) {
            clusterRoles.put(String.valueOf(Json.map(r, "metadata").get("name")), r);
        }
        json(
                req.response(),
                201,
                SelfSubjectRulesReviews.answer(
                        review,
                        ServiceAccountTokens.caller(req.getHeader("Authorization")),
                        items(rbac + "namespaces/" + ns + "/rolebindings"),
                        items(rbac + "clusterrolebindings"),
                        roles,
                        clusterRoles));
    }

    private List<Map<String, Object>> items(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = backendGet(path);
        return r.statusCode() == 200 ? Json.maps(Json.parse(r.body()), "items") : List.of();
    }

    /**
     * {@code ?dryRun=All} on a create, update or delete (kubectl --dry-run=server): answered as the
     * write would be, and nothing stored (the mock ignores the parameter and stores).
     */
    private void dryRunWrite(HttpServerRequest req, ApiPath p, Buffer body)
            throws IOException, InterruptedException {
        String method = req.method().name();
        if (method.equals("POST") && p.name() == null) {
            Map<String, Object> obj = Json.parse(body.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> meta =
                    obj.get("metadata") instanceof Map<?, ?> m
                            ? (Map<String, Object>) m
                            : new LinkedHashMap<>();
            String name = Json.string(meta, "name");
            if (name != null && backendGet(req.path() + "/" + name).statusCode() == 200) {
                Map<String, Object> status = new LinkedHashMap<>();
                status.put("kind", "Status");
                status.put("apiVersion", "v1");
                status.put("metadata", Map.of());
                status.put("status", "Failure");
                status.put("message", p.resource() + " \"" + name + "\" already exists");
                status.put("reason", "AlreadyExists");
                status.put("details", Map.of("name", name, "kind", p.resource()));
                status.put("code", 409);
                json(req.response(), 409, status);
                return;
            }
            if (p.namespace() != null) {
                meta.put("namespace", p.namespace());
            }
            meta.put("uid", java.util.UUID.randomUUID().toString());
            meta.put(
                    "creationTimestamp",
                    Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
            obj.put("metadata", meta);
            json(req.response(), 201, obj);
            return;
        }
        HttpResponse<String> current = backendGet(req.path());
        if (current.statusCode() != 200 || method.equals("DELETE")) {
            reply(req, current);
            return;
        }
        if (method.equals("PUT")) {
            json(req.response(), 200, Json.parse(body.toString()));
            return;
        }
        forward(req, body, req.getHeader("Content-Type"));
    }

    /** {@code .../deployments/<name>/scale}: the workload read as a Scale, or its replicas set. */
    private void scale(HttpServerRequest req, Buffer body, String contentType, boolean dryRun)
            throws IOException, InterruptedException {
        String parent = parentPath(req.path());
        String method = req.method().name();
        for (int attempt = 1; ; attempt++) {
            HttpResponse<String> current = backendGet(parent);
            if (current.statusCode() != 200) {
                reply(req, current);
                return;
            }
            Map<String, Object> workload = Json.parse(current.body());
            Map<String, Object> scale = ScaleSubresource.scale(workload);
            Map<String, Object> written;
            try {
                if (method.equals("GET")) {
                    json(req.response(), 200, scale);
                    return;
                } else if (method.equals("PUT")) {
                    written = Json.parse(body.toString());
                } else if (method.equals("PATCH") && PatchType.of(contentType).isPresent()) {
                    written = PatchType.of(contentType).get().apply(scale, body.toString());
                } else {
                    fail(
                            req.response(),
                            405,
                            "MethodNotAllowed",
                            method + " is not supported on the scale subresource");
                    return;
                }
                workload = ScaleSubresource.withReplicas(workload, written);
            } catch (JsonPatch.NotApplicable e) {
                json(req.response(), 422, notApplicable(e.getMessage()));
                return;
            }
            if (dryRun) {
                json(req.response(), 200, ScaleSubresource.scale(workload));
                return;
            }
            HttpResponse<String> r = put(parent, workload);
            if (r.statusCode() == 200) {
                json(req.response(), 200, ScaleSubresource.scale(Json.parse(r.body())));
                return;
            }
            if (r.statusCode() != 409 || attempt == 5) {
                reply(req, r);
                return;
            }
        }
    }

    private HttpResponse<String> put(String uri, Map<String, Object> obj)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(backend + uri))
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .PUT(HttpRequest.BodyPublishers.ofString(Json.write(obj)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The patch types applied here (the mock refuses some and never answers others). */
    enum PatchType {
        JSON,
        MERGE,
        STRATEGIC,
        /** Server-side apply, simplified: no field ownership, so no conflicts and no removals. */
        APPLY;

        static Optional<PatchType> of(String contentType) {
            if (contentType == null) {
                return Optional.empty();
            }
            String t = contentType.split(";")[0].strip().toLowerCase(Locale.ROOT);
            return switch (t) {
                case "application/json-patch+json" -> Optional.of(JSON);
                case "application/merge-patch+json" -> Optional.of(MERGE);
                case "application/strategic-merge-patch+json" -> Optional.of(STRATEGIC);
                case "application/apply-patch+yaml" -> Optional.of(APPLY);
                default -> Optional.empty();
            };
        }

        Map<String, Object> apply(Map<String, Object> current, String patch) {
            Object parsed;
            try {
                parsed = Json.MAPPER.readValue(patch, Object.class);
            } catch (IOException e) {
                if (this != APPLY) {
                    throw new IllegalArgumentException("invalid patch: " + e.getMessage(), e);
                }
                parsed = Json.yaml(patch);
            }
            return switch (this) {
                case JSON -> JsonPatch.apply(current, parsed);
                case MERGE -> JsonPatch.merge(current, parsed);
                case STRATEGIC, APPLY -> {
                    if (!(parsed instanceof Map<?, ?> m)) {
                        throw new IllegalArgumentException("invalid JSON document");
                    }
                    @SuppressWarnings("unchecked")
                    Map<String, Object> p = (Map<String, Object>) m;
                    yield StrategicMergePatch.apply(current, p);
                }
            };
        }
    }

    /**
     * Applies a patch here, as kube-apiserver does, and stores the result with a PUT: a patch that
     * does not apply gets kube-apiserver's 422 at once (the mock would never answer), one that
     * changes nothing is answered with the stored object, and a write lost to another writer is
     * tried again on the newer object.
     */
    private void patch(HttpServerRequest req, Buffer body, PatchType type, boolean dryRun)
            throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            HttpResponse<String> current = backendGet(req.path());
            if (current.statusCode() == 404 && type == PatchType.APPLY) {
                applyCreate(req, body, dryRun);
                return;
            }
            if (current.statusCode() != 200) {
                reply(req, current);
                return;
            }
            Map<String, Object> stored = Json.parse(current.body());
            Map<String, Object> patched;
            try {
                patched = type.apply(stored, body.toString());
            } catch (JsonPatch.NotApplicable e) {
                json(req.response(), 422, notApplicable(e.getMessage()));
                return;
            }
            if (JsonPatch.sameJson(stored, patched)) {
                reply(req, current);
                return;
            }
            if (dryRun) {
                json(req.response(), 200, patched);
                return;
            }
            HttpResponse<String> r = put(req.path(), patched);
            boolean ownVersion =
                    java.util.Objects.equals(
                            Json.map(stored, "metadata").get("resourceVersion"),
                            Json.map(patched, "metadata").get("resourceVersion"));
            if (r.statusCode() != 409 || !ownVersion || attempt == 5) {
                reply(req, r);
                return;
            }
        }
    }

    /** Server-side apply of an object that does not exist yet: created from the applied config. */
    private void applyCreate(HttpServerRequest req, Buffer body, boolean dryRun)
            throws IOException, InterruptedException {
        Object parsed;
        try {
            parsed = Json.MAPPER.readValue(body.toString(), Object.class);
        } catch (IOException e) {
            parsed = Json.yaml(body.toString());
        }
        if (!(parsed instanceof Map<?, ?>)) {
            fail(req.response(), 400, "BadRequest", "the applied configuration is not an object");
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> obj = (Map<String, Object>) JsonPatch.copy(parsed);
        if (dryRun) {
            json(req.response(), 201, obj);
            return;
        }
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(URI.create(backend + parentPath(req.path())))
                                .header("Content-Type", "application/json")
                                .header("Accept", "application/json")
                                .timeout(Duration.ofSeconds(30))
                                .POST(HttpRequest.BodyPublishers.ofString(Json.write(obj)))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        reply(req, r);
    }

    /**
     * kube-apiserver's answer to a patch that does not apply: {@code NewGenericServerResponse(422,
     * ...)} with the patch library's error as the cause.
     */
    static Map<String, Object> notApplicable(String reason) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        status.put("status", "Failure");
        status.put("message", "the server rejected our request due to an error in our request");
        status.put("reason", "Invalid");
        status.put(
                "details",
                Map.of(
                        "causes",
                        List.of(Map.of("reason", "UnexpectedServerResponse", "message", reason))));
        status.put("code", 422);
        return status;
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
            reply(req, r);
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

    /**
     * A list with a field selector, filtered here (the mock reads only metadata.name and
     * metadata.namespace): the whole list from the mock, without paging, then the matching items.
     */
    private void selectedList(
            HttpServerRequest req, ApiPath p, Map<String, String> query, boolean table)
            throws Exception {
        Selected selected = selected(req, p, query);
        if (selected == null) {
            return;
        }
        if (table) {
            String kind =
                    discovery()
                            .find(p.group(), p.version(), p.resource())
                            .map(ApiResource::kind)
                            .orElse("");
            Tables.IncludeObject include = Tables.IncludeObject.parse(query.get("includeObject"));
            json(
                    req.response(),
                    200,
                    Tables.table(
                            printer(p, kind),
                            selected.items(),
                            include,
                            Instant.now(),
                            Json.map(selected.list(), "metadata")));
            return;
        }
        json(req.response(), 200, typedList(p, selected));
    }

    /** A field-selector request's list, whole, from the mock, and the items the selector takes. */
    private record Selected(Map<String, Object> list, List<Map<String, Object>> items) {}

    /**
     * The mock's whole list for a request with a field selector (its paging and the {@code ignored}
     * params left out), and the matching items; null when the mock refused, which is replied.
     */
    private Selected selected(
            HttpServerRequest req, ApiPath p, Map<String, String> query, String... ignored)
            throws IOException, InterruptedException {
        FieldSelector selector = FieldSelector.parse(query.get("fieldSelector"), p.resource());
        String rest = req.query();
        List<String> dropped = new ArrayList<>(List.of("fieldSelector", "limit", "continue"));
        dropped.addAll(List.of(ignored));
        for (String param : dropped) {
            rest = withQueryParam(rest, param, "");
        }
        HttpResponse<String> r = backendGet(req.path() + (rest.isEmpty() ? "" : "?" + rest));
        if (r.statusCode() != 200) {
            reply(req, r);
            return null;
        }
        Map<String, Object> list = Json.parse(r.body());
        return new Selected(
                list, Json.maps(list, "items").stream().filter(selector::matches).toList());
    }

    /** The selected items as the API's list of their kind. */
    private Map<String, Object> typedList(ApiPath p, Selected selected)
            throws IOException, InterruptedException {
        Map<String, Object> list = selected.list();
        list.put("items", selected.items());
        Optional<ApiResource> type = discovery().find(p.group(), p.version(), p.resource());
        if (type.isPresent()) {
            list.put("kind", type.get().kind() + "List");
            list.put("apiVersion", type.get().groupVersion());
        }
        return list;
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
        String fieldSelector = query.getOrDefault("fieldSelector", "");
        FieldSelector selector =
                p != null && !fieldSelector.isBlank()
                        ? FieldSelector.parse(fieldSelector, p.resource())
                        : null;
        String uri =
                selector == null
                        ? req.uri()
                        : req.path() + "?" + withQueryParam(req.query(), "fieldSelector", "");
        HttpServerResponse resp = req.response();
        AtomicBoolean closed = new AtomicBoolean();
        // the head goes out first: the mock sends events as soon as the WebSocket is open
        resp.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
        resp.writeHead();
        StringBuilder partial = new StringBuilder();
        CompletableFuture<WebSocket> ws =
                http.newWebSocketBuilder()
                        .buildAsync(
                                URI.create(backend.replaceFirst("^http", "ws") + uri),
                                new WebSocket.Listener() {
                                    @Override
                                    public CompletionStage<?> onText(
                                            WebSocket w, CharSequence data, boolean last) {
                                        partial.append(data);
                                        if (last) {
                                            String event = partial.toString();
                                            partial.setLength(0);
                                            try {
                                                if (selected(event, selector)) {
                                                    resp.write(
                                                            convertEvent(event, printer, include)
                                                                    + "\n");
                                                }
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
        ws.thenCompose(w -> missedDeletion(p, req.path(), query, selector))
                .thenAccept(
                        missed ->
                                missed.ifPresent(
                                        e -> {
                                            if (!closed.get()) {
                                                resp.write(
                                                        convertEvent(e, printer, include) + "\n");
                                            }
                                        }));
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

    /**
     * The deletion a watch of one object by name ({@code kubectl wait}, {@code kubectl delete
     * --wait}) from {@code resourceVersion} missed before it opened, as a DELETED event:
     * kube-apiserver replays the events since that version, the mock starts a watch with an ADDED
     * event for each object there now and never tells of one already gone (the wait for a deletion
     * that finished between kubectl's list and its watch never ended). Empty for other watches, or
     * an object still there.
     */
    private CompletableFuture<Optional<String>> missedDeletion(
            ApiPath p, String collection, Map<String, String> query, FieldSelector selector) {
        String since = query.get("resourceVersion");
        Optional<String> name = selector == null ? Optional.empty() : selector.name();
        if (p == null
                || p.name() != null
                || name.isEmpty()
                || since == null
                || since.isEmpty()
                || since.equals("0")) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        HttpRequest get =
                HttpRequest.newBuilder(URI.create(backend + collection + "/" + name.get()))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build();
        return http.sendAsync(get, HttpResponse.BodyHandlers.discarding())
                .thenApply(
                        r -> {
                            try {
                                return r.statusCode() == 404
                                        ? deletedEvent(p, name.get(), since)
                                        : Optional.<String>empty();
                            } catch (IOException | InterruptedException | RuntimeException e) {
                                return Optional.<String>empty();
                            }
                        })
                .exceptionally(e -> Optional.empty());
    }

    /** A DELETED event for an object of {@code p}'s kind known only by its name. */
    private Optional<String> deletedEvent(ApiPath p, String name, String since)
            throws IOException, InterruptedException {
        Optional<ApiResource> type = discovery().find(p.group(), p.version(), p.resource());
        if (type.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        if (p.namespace() != null) {
            meta.put("namespace", p.namespace());
        }
        meta.put("resourceVersion", since);
        Map<String, Object> gone = new LinkedHashMap<>();
        gone.put("apiVersion", type.get().groupVersion());
        gone.put("kind", type.get().kind());
        gone.put("metadata", meta);
        return Optional.of(Json.write(Map.of("type", "DELETED", "object", gone)));
    }

    /** Whether a watch event's object passes the field selector (null: no selector). */
    private static boolean selected(String event, FieldSelector selector) {
        if (selector == null) {
            return true;
        }
        Map<String, Object> obj = Json.map(Json.parse(event), "object");
        return "Status".equals(obj.get("kind")) || selector.matches(obj);
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

    // ---- exec
    // ---------------------------------------------------------------------------------------------------

    /**
     * {@code pods/exec}: checks the request and finds the container as kube-apiserver and the
     * kubelet would (their refusals are HTTP answers), then upgrades to a WebSocket and streams the
     * command's output and its exit status. SPDY (kubectl's fallback) is refused.
     */
    private void exec(HttpServerRequest req, ApiPath p, io.vertx.core.Context context) {
        HttpServerResponse resp = req.response();
        try {
            ExecStream.Request r = ExecStream.Request.parse(req.query());
            if (r.command().isEmpty()) {
                fail(resp, 400, "BadRequest", "you must specify at least 1 command");
                return;
            }
            if (r.stdin() || r.tty()) {
                fail(
                        resp,
                        400,
                        "BadRequest",
                        "exec with stdin or a TTY (kubectl exec -i/-t) is not served by the"
                                + " simulated cluster: only commands that need no input");
                return;
            }
            HttpResponse<String> got =
                    backendGet("/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name());
            if (got.statusCode() != 200) {
                reply(req, got);
                return;
            }
            Map<String, Object> pod = Json.parse(got.body());
            Map<String, Object> spec = Json.map(pod, "spec");
            List<String> containers = new ArrayList<>();
            for (String kind : List.of("containers", "initContainers", "ephemeralContainers")) {
                Json.maps(spec, kind).forEach(c -> containers.add(String.valueOf(c.get("name"))));
            }
            String container = r.container();
            if (container == null) {
                List<String> main =
                        Json.maps(spec, "containers").stream()
                                .map(c -> String.valueOf(c.get("name")))
                                .toList();
                if (main.size() != 1) {
                    fail(
                            resp,
                            400,
                            "BadRequest",
                            "a container name must be specified for pod "
                                    + p.name()
                                    + ", choose one of: "
                                    + main);
                    return;
                }
                container = main.getFirst();
            } else if (!containers.contains(container)) {
                fail(
                        resp,
                        400,
                        "BadRequest",
                        "container " + container + " is not valid for pod " + p.name());
                return;
            }
            String node = Json.string(spec, "nodeName");
            if (node == null || node.isEmpty()) {
                fail(resp, 400, "BadRequest", "pod " + p.name() + " does not have a host assigned");
                return;
            }
            PodExec.Target target;
            try {
                target =
                        execs.target(
                                new PodLogSource.PodRef(
                                        p.namespace(),
                                        p.name(),
                                        Json.string(Json.map(pod, "metadata"), "uid"),
                                        node),
                                container);
            } catch (NoSuchElementException e) {
                // the kubelet's answer, which kube-apiserver passes on as the failed upgrade
                resp.setStatusCode(500)
                        .putHeader("Content-Type", "text/plain")
                        .end(String.valueOf(e.getMessage()));
                return;
            } catch (UnsupportedOperationException e) {
                fail(
                        resp,
                        400,
                        "BadRequest",
                        "cannot exec in pod "
                                + p.name()
                                + " on node "
                                + node
                                + ": "
                                + e.getMessage());
                return;
            }
            if (!"websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
                fail(
                        resp,
                        400,
                        "BadRequest",
                        "Upgrade request required: the simulated cluster serves exec over"
                                + " WebSockets ("
                                + ExecStream.PROTOCOL_V5
                                + ") only, not SPDY");
                return;
            }
            List<String> command = r.command();
            context.runOnContext(
                    v ->
                            req.toWebSocket()
                                    .onFailure(e -> {})
                                    .onSuccess(
                                            ws -> {
                                                ws.frameHandler(frame -> {});
                                                work.submit(
                                                        () -> streamExec(ws, r, target, command));
                                            }));
        } catch (Exception e) {
            fail(resp, 500, "InternalError", String.valueOf(e.getMessage()));
        }
    }

    private static void streamExec(
            ServerWebSocket ws, ExecStream.Request r, PodExec.Target target, List<String> command) {
        Map<String, Object> status;
        try {
            PodExec.Result result = target.run(command);
            if (r.stdout()) {
                ExecStream.frames(ExecStream.STDOUT, result.stdout())
                        .forEach(m -> ws.writeBinaryMessage(Buffer.buffer(m)));
            }
            if (r.stderr()) {
                ExecStream.frames(ExecStream.STDERR, result.stderr())
                        .forEach(m -> ws.writeBinaryMessage(Buffer.buffer(m)));
            }
            status = ExecStream.status(result.exitCode(), command);
        } catch (Exception e) {
            status = ExecStream.failure("error executing command in container: " + e.getMessage());
        }
        ws.writeBinaryMessage(Buffer.buffer(ExecStream.statusFrame(status)))
                .onComplete(v -> ws.close((short) 1000));
    }

    // ---- logs
    // ---------------------------------------------------------------------------------------------------

    private void podLog(HttpServerRequest req, ApiPath p, Map<String, String> query)
            throws Exception {
        HttpResponse<String> r =
                backendGet("/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name());
        if (r.statusCode() != 200) {
            reply(req, r);
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

    /**
     * {@code GET .../pods/<name>[:port]/proxy/<path>}: sent on to the pod's IP and port (in
     * container mode a pod's IP is on its node's bridge, which this machine reaches), answered with
     * the pod's status, type and body; kube-apiserver's 503 when it cannot be reached.
     */
    private void podProxy(HttpServerRequest req, PodProxy.Target t)
            throws IOException, InterruptedException {
        if (!req.method().name().equals("GET")) {
            fail(
                    req.response(),
                    405,
                    "MethodNotAllowed",
                    "only GET is proxied to pods by this API server");
            return;
        }
        HttpResponse<String> got =
                backendGet("/api/v1/namespaces/" + t.namespace() + "/pods/" + t.pod());
        if (got.statusCode() == 404) {
            fail(req.response(), 404, "NotFound", "pods \"" + t.pod() + "\" not found");
            return;
        }
        Map<String, Object> pod = Json.parse(got.body());
        Optional<String> ip = PodProxy.podIp(pod);
        if (ip.isEmpty()) {
            fail(
                    req.response(),
                    503,
                    "ServiceUnavailable",
                    "pod " + t.namespace() + "/" + t.pod() + " has no IP address yet");
            return;
        }
        int port = PodProxy.port(t, pod);
        String target =
                t.scheme()
                        + "://"
                        + ip.get()
                        + ":"
                        + port
                        + t.path()
                        + (req.query() == null ? "" : "?" + req.query());
        HttpRequest.Builder out =
                HttpRequest.newBuilder(URI.create(target)).timeout(Duration.ofSeconds(10)).GET();
        if (req.getHeader("Accept") != null) {
            out.header("Accept", req.getHeader("Accept"));
        }
        HttpResponse<byte[]> answer;
        try {
            answer = http.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            fail(
                    req.response(),
                    503,
                    "ServiceUnavailable",
                    "error trying to reach service: dial tcp "
                            + ip.get()
                            + ":"
                            + port
                            + ": "
                            + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return;
        }
        HttpServerResponse resp = req.response().setStatusCode(answer.statusCode());
        answer.headers()
                .firstValue("Content-Type")
                .ifPresent(type -> resp.putHeader("Content-Type", type));
        resp.end(Buffer.buffer(answer.body()));
    }

    // ---- plumbing
    // -----------------------------------------------------------------------------------------------

    /** Replaces the object at {@code path} on the backend; its status code. */
    private int backendPut(String path, Map<String, Object> object)
            throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create(backend + path))
                                .header("Content-Type", "application/json")
                                .timeout(Duration.ofSeconds(30))
                                .PUT(HttpRequest.BodyPublishers.ofString(Json.write(object)))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private HttpResponse<String> backendGet(String uri) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(backend + uri))
                        .header("Accept", "application/json")
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @param contentType the body's, which replaces the request's (a protobuf body decoded here
     *     goes on as JSON)
     */
    private void forward(HttpServerRequest req, Buffer body, String contentType)
            throws IOException, InterruptedException {
        String uri = req.uri();
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
                            if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT))
                                    && !k.equalsIgnoreCase("content-type")) {
                                b.header(k, v);
                            }
                        });
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
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
        if (r.statusCode() == 404 && out.length == 0) {
            Optional<Map<String, Object>> status = notFound(req.path());
            if (status.isPresent()) {
                out = Json.write(status.get()).getBytes(StandardCharsets.UTF_8);
            }
        }
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

    private static void reply(HttpServerRequest req, HttpResponse<String> r) {
        String body = r.body();
        if (r.statusCode() == 404 && (body == null || body.isBlank())) {
            body = notFound(req.path()).map(Json::write).orElse(body);
        }
        req.response()
                .setStatusCode(r.statusCode())
                .putHeader("Content-Type", "application/json")
                .end(body);
    }

    /**
     * kube-apiserver's 404 for a named object ({@code configmaps "x" not found}, {@code
     * deployments.apps "web" not found}), where the mock answers an empty body.
     */
    static Optional<Map<String, Object>> notFound(String path) {
        Optional<ApiPath> p = ApiPath.parse(path);
        if (p.isEmpty() || p.get().name() == null) {
            return Optional.empty();
        }
        String resource =
                p.get().group().isEmpty()
                        ? p.get().resource()
                        : p.get().resource() + "." + p.get().group();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("name", p.get().name());
        if (!p.get().group().isEmpty()) {
            details.put("group", p.get().group());
        }
        details.put("kind", p.get().resource());
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        status.put("status", "Failure");
        status.put("message", resource + " \"" + p.get().name() + "\" not found");
        status.put("reason", "NotFound");
        status.put("details", details);
        status.put("code", 404);
        return Optional.of(status);
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
        // not close(): it waits for every exchange, and a watch or a pod proxy may never end
        http.shutdownNow();
    }
}
