package org.gpuoperator.e2e.apiserver;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code POST .../pods/<name>/eviction}, which the mock would store as an object: kube-apiserver's
 * answers, with the decision taken by {@link DisruptionBudgets} over the pods and budgets the mock
 * holds, and the pod deleted through the mock's DELETE as {@code kubectl delete} would.
 */
final class EvictionSubresource {

    /** An HTTP answer: the status code and the JSON body. */
    record Answer(int code, Map<String, Object> body) {}

    private static final Set<String> EVICTION_VERSIONS = Set.of("policy/v1", "policy/v1beta1");

    private final String backend;
    private final HttpClient http;

    /** One eviction at a time: two evictions must never both spend a budget's last disruption. */
    private final ReentrantLock lock = new ReentrantLock();

    EvictionSubresource(String backend, HttpClient http) {
        this.backend = backend;
        this.http = http;
    }

    Answer evict(ApiPath p, String requestBody, Map<String, String> query)
            throws IOException, InterruptedException {
        Map<String, Object> eviction = Json.parse(requestBody.isBlank() ? "{}" : requestBody);
        String apiVersion = Json.string(eviction, "apiVersion");
        String kind = Json.string(eviction, "kind");
        if (!"Eviction".equals(kind) || !EVICTION_VERSIONS.contains(apiVersion)) {
            return failure(
                    400,
                    "BadRequest",
                    "pods/eviction takes a policy/v1 (or policy/v1beta1) Eviction, not "
                            + apiVersion
                            + " "
                            + kind);
        }
        if (!p.name().equals(Json.name(eviction))) {
            return failure(400, "BadRequest", "name in URL does not match name in Eviction object");
        }
        Map<String, Object> deleteOptions = Json.map(eviction, "deleteOptions");
        List<String> bodyDryRun = Json.strings(deleteOptions, "dryRun");
        String queryDryRun = query.get("dryRun");
        if (!bodyDryRun.isEmpty()
                && queryDryRun != null
                && !bodyDryRun.equals(List.of(queryDryRun))) {
            return failure(
                    400,
                    "BadRequest",
                    "Non-matching dry-run options in request and content: ["
                            + queryDryRun
                            + "] and "
                            + bodyDryRun);
        }
        boolean dryRun = !bodyDryRun.isEmpty() || queryDryRun != null;
        lock.lock();
        try {
            return decideAndDelete(p, deleteOptions, dryRun);
        } finally {
            lock.unlock();
        }
    }

    private Answer decideAndDelete(ApiPath p, Map<String, Object> deleteOptions, boolean dryRun)
            throws IOException, InterruptedException {
        String podUri = "/api/v1/namespaces/" + p.namespace() + "/pods/" + p.name();
        HttpResponse<String> got = send("GET", podUri, null);
        if (got.statusCode() == 404) {
            // the mock answers a missing object with an empty body
            Answer notFound = failure(404, "NotFound", "pods \"" + p.name() + "\" not found");
            notFound.body().put("details", Map.of("name", p.name(), "kind", "pods"));
            return notFound;
        }
        if (got.statusCode() != 200) {
            return failure(
                    got.statusCode(),
                    "InternalError",
                    "the mock API server answered " + got.statusCode() + " to " + podUri);
        }
        Pod pod = Json.MAPPER.readValue(got.body(), Pod.class);
        Answer precondition = precondition(pod, Json.map(deleteOptions, "preconditions"));
        if (precondition != null) {
            return precondition;
        }
        List<PodDisruptionBudget> budgets = budgets(p.namespace());
        DisruptionBudgets.Verdict verdict;
        try {
            verdict = DisruptionBudgets.evict(pod, budgets, pods(p.namespace()));
        } catch (IllegalArgumentException e) {
            return failure(500, "InternalError", e.getMessage());
        }
        switch (verdict) {
            case DisruptionBudgets.MoreThanOneBudget m -> {
                // kube-apiserver answers this one without a reason
                return failure(500, null, DisruptionBudgets.MoreThanOneBudget.MESSAGE);
            }
            case DisruptionBudgets.Refused r -> {
                writeStatus(r.budget(), r.health());
                Map<String, Object> status =
                        status(
                                "Failure",
                                429,
                                "TooManyRequests",
                                DisruptionBudgets.Refused.MESSAGE);
                status.put(
                        "details",
                        Map.of(
                                "causes",
                                List.of(
                                        Map.of(
                                                "reason",
                                                "DisruptionBudget",
                                                "message",
                                                r.cause()))));
                return new Answer(429, status);
            }
            case DisruptionBudgets.Allowed a -> {
                if (dryRun) {
                    return new Answer(201, status("Success", 201, null, null));
                }
                HttpResponse<String> deleted =
                        send(
                                "DELETE",
                                podUri,
                                deleteOptions.isEmpty() ? null : Json.write(deleteOptions));
                if (deleted.statusCode() / 100 != 2) {
                    return failure(
                            deleted.statusCode(),
                            "InternalError",
                            "the mock API server answered "
                                    + deleted.statusCode()
                                    + " to the pod's DELETE: "
                                    + deleted.body());
                }
                if (a.budget() != null) {
                    // what the disruption controller would show next: the budget without the pod
                    writeStatus(
                            a.budget(), DisruptionBudgets.health(a.budget(), pods(p.namespace())));
                }
                return new Answer(201, status("Success", 201, null, null));
            }
        }
    }

    /** DELETE's preconditions, which the mock does not check. */
    private static Answer precondition(Pod pod, Map<String, Object> preconditions) {
        String uid = Json.string(preconditions, "uid");
        String resourceVersion = Json.string(preconditions, "resourceVersion");
        String message = null;
        if (uid != null && !uid.equals(pod.getMetadata().getUid())) {
            message =
                    "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                            .formatted(uid, pod.getMetadata().getUid());
        } else if (resourceVersion != null
                && !resourceVersion.equals(pod.getMetadata().getResourceVersion())) {
            message =
                    ("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion"
                                    + " in object meta: %s")
                            .formatted(resourceVersion, pod.getMetadata().getResourceVersion());
        }
        if (message == null) {
            return null;
        }
        Answer conflict =
                failure(
                        409,
                        "Conflict",
                        "Operation cannot be fulfilled on pods \""
                                + pod.getMetadata().getName()
                                + "\": "
                                + message);
        conflict.body().put("details", Map.of("name", pod.getMetadata().getName(), "kind", "pods"));
        return conflict;
    }

    /**
     * The budget's status as the disruption controller keeps it, so that {@code kubectl get pdb}
     * shows the numbers the last eviction was judged by; written only when they change.
     */
    private void writeStatus(PodDisruptionBudget budget, DisruptionBudgets.Health health)
            throws IOException, InterruptedException {
        var current = budget.getStatus();
        Long generation = budget.getMetadata().getGeneration();
        if (current != null
                && Objects.equals(current.getExpectedPods(), health.expectedPods())
                && Objects.equals(current.getCurrentHealthy(), health.currentHealthy())
                && Objects.equals(current.getDesiredHealthy(), health.desiredHealthy())
                && Objects.equals(current.getDisruptionsAllowed(), health.disruptionsAllowed())
                && Objects.equals(current.getObservedGeneration(), generation)) {
            return;
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("expectedPods", health.expectedPods());
        status.put("currentHealthy", health.currentHealthy());
        status.put("desiredHealthy", health.desiredHealthy());
        status.put("disruptionsAllowed", health.disruptionsAllowed());
        if (generation != null) {
            status.put("observedGeneration", generation);
        }
        // best effort, as the numbers are recomputed on every eviction: no answer hangs on it
        send(
                "PATCH",
                "/apis/policy/v1/namespaces/"
                        + budget.getMetadata().getNamespace()
                        + "/poddisruptionbudgets/"
                        + budget.getMetadata().getName()
                        + "/status",
                Json.write(Map.of("status", status)));
    }

    private List<PodDisruptionBudget> budgets(String namespace)
            throws IOException, InterruptedException {
        HttpResponse<String> r =
                send(
                        "GET",
                        "/apis/policy/v1/namespaces/" + namespace + "/poddisruptionbudgets",
                        null);
        return r.statusCode() == 200
                ? Json.MAPPER.readValue(r.body(), PodDisruptionBudgetList.class).getItems()
                : List.of();
    }

    private List<Pod> pods(String namespace) throws IOException, InterruptedException {
        HttpResponse<String> r = send("GET", "/api/v1/namespaces/" + namespace + "/pods", null);
        if (r.statusCode() != 200) {
            throw new IOException(
                    "the mock API server answered "
                            + r.statusCode()
                            + " to the pod list of "
                            + namespace);
        }
        return Json.MAPPER.readValue(r.body(), PodList.class).getItems();
    }

    private HttpResponse<String> send(String method, String uri, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(backend + uri))
                        .header("Accept", "application/json")
                        .timeout(Duration.ofSeconds(30))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header(
                    "Content-Type",
                    method.equals("PATCH") ? "application/merge-patch+json" : "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Answer failure(int code, String reason, String message) {
        return new Answer(code, status("Failure", code, reason, message));
    }

    private static Map<String, Object> status(
            String outcome, int code, String reason, String message) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        status.put("status", outcome);
        if (message != null) {
            status.put("message", message);
        }
        if (reason != null) {
            status.put("reason", reason);
        }
        status.put("code", code);
        return status;
    }
}
