package org.gpuoperator.e2e.apiserver;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * Bearer tokens that name who sends them, so that the simulated API server knows the caller of each
 * request as a real one does. A service account's token is JWT-shaped ({@code header.payload.},
 * unsigned) with the claim {@code sub: system:serviceaccount:<ns>:<name>}; any other token (the
 * kubeconfig's) is its own user name.
 */
public final class ServiceAccountTokens {

    private static final String PREFIX = "system:serviceaccount:";
    private static final Base64.Encoder ENCODE = Base64.getUrlEncoder().withoutPadding();
    private static final String HEADER =
            ENCODE.encodeToString(
                    "{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));

    private ServiceAccountTokens() {}

    /** The user name Kubernetes gives a service account. */
    public static String user(String namespace, String serviceAccount) {
        return PREFIX + namespace + ":" + serviceAccount;
    }

    /** The token the simulated kubelet mounts into a pod that runs as {@code serviceAccount}. */
    public static String mint(String namespace, String serviceAccount) {
        String payload =
                "{\"sub\":\"%s\",\"kubernetes.io\":{\"namespace\":\"%s\",\"serviceaccount\":{\"name\":\"%s\"}}}"
                        .formatted(user(namespace, serviceAccount), namespace, serviceAccount);
        return HEADER + "." + ENCODE.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + ".";
    }

    /**
     * Who sends {@code authorization} (an HTTP Authorization header): the service account a minted
     * token names, the token itself for other tokens, {@code system:anonymous} without one.
     */
    public static String caller(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return "system:anonymous";
        }
        String token = authorization.substring(7).trim();
        return serviceAccount(token).orElse(token);
    }

    /** The user a token minted by {@link #mint} names; empty for any other token. */
    static Optional<String> serviceAccount(String token) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || !parts[0].equals(HEADER)) {
            return Optional.empty();
        }
        try {
            String payload =
                    new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
            return Optional.ofNullable(Json.parse(payload).get("sub"))
                    .map(String::valueOf)
                    .filter(s -> s.startsWith(PREFIX));
        } catch (RuntimeException e) { // not base64 or not JSON: not a minted token
            return Optional.empty();
        }
    }

    /**
     * kube-apiserver's answer to a {@code TokenRequest} for a service account ({@code kubectl
     * create token}): the request with a token minted for the account and its expiry ({@code
     * spec.expirationSeconds}, 3600 by default).
     */
    public static Map<String, Object> tokenRequest(
            Map<String, Object> request, String namespace, String serviceAccount, Instant now) {
        Map<String, Object> out = new java.util.LinkedHashMap<>(request);
        out.put("kind", "TokenRequest");
        out.put("apiVersion", "authentication.k8s.io/v1");
        Map<String, Object> meta = new java.util.LinkedHashMap<>(Json.map(request, "metadata"));
        meta.put("name", serviceAccount);
        meta.put("namespace", namespace);
        meta.put("creationTimestamp", null);
        out.put("metadata", meta);
        Map<String, Object> spec = new java.util.LinkedHashMap<>(Json.map(request, "spec"));
        long seconds = spec.get("expirationSeconds") instanceof Number n ? n.longValue() : 3600L;
        spec.put("expirationSeconds", seconds);
        out.put("spec", spec);
        out.put(
                "status",
                Map.of(
                        "token",
                        mint(namespace, serviceAccount),
                        "expirationTimestamp",
                        now.plusSeconds(seconds)
                                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                .toString()));
        return out;
    }
}
