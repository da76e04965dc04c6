package org.gpuoperator.e2e.apiserver;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Authentication;
import io.kubernetes.client.proto.V1Autoscaling;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Scheduling;
import io.kubernetes.client.proto.V1Storage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Request bodies in Kubernetes' protobuf encoding ({@code application/vnd.kubernetes.protobuf},
 * what kubectl's typed commands send: {@code create configmap|secret|deployment|namespace}) decoded
 * into the JSON object the mock stores. The body is the magic {@code k8s\0} and a {@code
 * runtime.Unknown} whose type meta names the kind and whose raw bytes are the object's generated
 * message.
 *
 * <p>The messages are Kubernetes' own ({@code io.kubernetes:client-java-proto}); fields map to JSON
 * as the API server's JSON encoding has them: the proto field names are the JSON names, {@code
 * Quantity} is its string, {@code Time} an RFC 3339 string (the zero time is left out, as Go's JSON
 * writes it as null), {@code MicroTime} the same with microseconds, {@code IntOrString} a number or
 * a string, {@code bytes} base64, {@code RawExtension} and {@code FieldsV1} the JSON they carry.
 * Go's non-pointer fields come in the protobuf even when empty; empty strings, zero numbers and
 * false are left out as Go's {@code omitempty} does (but for the pointer fields in {@link
 * #KEEP_ZERO}), empty objects are kept. Go's inline structs (a probe's handler, a volume's source)
 * are merged into their object, as in JSON.
 */
public final class ProtobufBodies {

    /** The media type kubectl's typed clients send. */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private static final DateTimeFormatter MICRO =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(ZoneOffset.UTC);

    /**
     * Go structs embedded with {@code json:",inline"}: a field of their own in the protobuf, their
     * fields in the containing object in JSON.
     */
    private static final java.util.Set<String> INLINE =
            java.util.Set.of(
                    "k8s.io.api.core.v1.Probe.handler",
                    "k8s.io.api.core.v1.Volume.volumeSource",
                    "k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource",
                    "k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon",
                    "k8s.io.api.networking.v1.IngressRule.ingressRuleValue");

    /**
     * Go pointer fields whose zero or false is a value a client sets on purpose ({@code kubectl
     * create deployment --replicas=0}); other zero numbers and false booleans come from Go's
     * non-pointer fields, which its JSON leaves out ({@code omitempty}). The protobuf cannot tell
     * the two apart.
     */
    private static final java.util.Set<String> KEEP_ZERO =
            java.util.Set.of(
                    "replicas",
                    "terminationGracePeriodSeconds",
                    "activeDeadlineSeconds",
                    "runAsUser",
                    "runAsGroup",
                    "fsGroup",
                    "runAsNonRoot",
                    "privileged",
                    "readOnlyRootFilesystem",
                    "allowPrivilegeEscalation",
                    "automountServiceAccountToken",
                    "immutable",
                    "optional",
                    "defaultMode",
                    "mode",
                    "backoffLimit",
                    "parallelism",
                    "completions",
                    "ttlSecondsAfterFinished",
                    "suspend",
                    "revisionHistoryLimit",
                    "progressDeadlineSeconds",
                    "successfulJobsHistoryLimit",
                    "failedJobsHistoryLimit",
                    "startingDeadlineSeconds");

    /** Message descriptors by proto full name, e.g. {@code k8s.io.api.core.v1.ConfigMap}. */
    private static final Map<String, Descriptor> TYPES = types();

    private ProtobufBodies() {}

    public static boolean isProtobuf(String contentType) {
        return contentType != null
                && contentType.split(";")[0].strip().equalsIgnoreCase(MEDIA_TYPE);
    }

    /**
     * The object in {@code body}, as JSON with its {@code apiVersion} and {@code kind}.
     *
     * @throws IllegalArgumentException not Kubernetes' protobuf encoding, a kind we have no message
     *     for, or fields the message does not know (nothing is dropped in silence)
     */
    public static Map<String, Object> decode(byte[] body) {
        if (body.length < MAGIC.length
                || !Arrays.equals(Arrays.copyOf(body, MAGIC.length), MAGIC)) {
            throw new IllegalArgumentException(
                    "protobuf body without the k8s\\0 prefix of Kubernetes' protobuf encoding");
        }
        Runtime.Unknown unknown;
        try {
            unknown =
                    Runtime.Unknown.parseFrom(Arrays.copyOfRange(body, MAGIC.length, body.length));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException(
                    "protobuf body is not a runtime.Unknown: " + e.getMessage(), e);
        }
        String apiVersion = unknown.getTypeMeta().getApiVersion();
        String kind = unknown.getTypeMeta().getKind();
        if (!unknown.getContentEncoding().isEmpty()) {
            throw new IllegalArgumentException(
                    "protobuf body with content encoding "
                            + unknown.getContentEncoding()
                            + " is not supported");
        }
        Descriptor type = TYPES.get(protoName(apiVersion, kind));
        if (type == null) {
            throw new IllegalArgumentException(
                    "the simulated API server cannot decode protobuf bodies of "
                            + apiVersion
                            + " "
                            + kind
                            + "; send JSON (kubectl create -f / apply -f)");
        }
        DynamicMessage msg;
        try {
            msg = DynamicMessage.parseFrom(type, unknown.getRaw());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException(
                    "protobuf body is not a " + apiVersion + " " + kind + ": " + e.getMessage(), e);
        }
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("apiVersion", apiVersion);
        obj.put("kind", kind);
        obj.putAll(object(msg, kind));
        return obj;
    }

    /** {@code apps/v1 Deployment} is {@code k8s.io.api.apps.v1.Deployment}. */
    static String protoName(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "core" : apiVersion.substring(0, slash).split("\\.")[0];
        String version = apiVersion.substring(slash + 1);
        return "k8s.io.api." + group + "." + version + "." + kind;
    }

    private static Map<String, Descriptor> types() {
        Map<String, Descriptor> m = new HashMap<>();
        for (FileDescriptor f :
                List.of(
                        V1.getDescriptor(),
                        V1Apps.getDescriptor(),
                        V1Authentication.getDescriptor(),
                        V1Batch.getDescriptor(),
                        V1Rbac.getDescriptor(),
                        V1Policy.getDescriptor(),
                        V1Networking.getDescriptor(),
                        V1Scheduling.getDescriptor(),
                        V1Storage.getDescriptor(),
                        V1Autoscaling.getDescriptor())) {
            for (Descriptor d : f.getMessageTypes()) {
                m.put(d.getFullName(), d);
            }
        }
        return m;
    }

    private static Map<String, Object> object(Message msg, String where) {
        if (!msg.getUnknownFields().asMap().isEmpty()) {
            throw new IllegalArgumentException(
                    "protobuf body: "
                            + where
                            + " has fields "
                            + msg.getUnknownFields().asMap().keySet()
                            + " that "
                            + msg.getDescriptorForType().getFullName()
                            + " (Kubernetes 1.32) does not know");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<FieldDescriptor, Object> e : msg.getAllFields().entrySet()) {
            FieldDescriptor f = e.getKey();
            String path = where + "." + f.getName();
            Object v;
            if (f.isMapField()) {
                Map<String, Object> map = new LinkedHashMap<>();
                for (Object entry : (List<?>) e.getValue()) {
                    Message m = (Message) entry;
                    FieldDescriptor kf = m.getDescriptorForType().findFieldByName("key");
                    FieldDescriptor vf = m.getDescriptorForType().findFieldByName("value");
                    Object value = value(vf, m.getField(vf), path);
                    map.put(String.valueOf(m.getField(kf)), value);
                }
                v = map;
            } else if (f.isRepeated()) {
                List<Object> list = new ArrayList<>();
                for (Object x : (List<?>) e.getValue()) {
                    list.add(value(f, x, path));
                }
                v = list;
            } else {
                v = value(f, e.getValue(), path);
                if (v == null || "".equals(v)) {
                    continue;
                }
                if ((Boolean.FALSE.equals(v) || (v instanceof Number n && n.longValue() == 0))
                        && !(KEEP_ZERO.contains(f.getName()) && !path.contains(".status."))) {
                    continue;
                }
                if (INLINE.contains(f.getFullName()) && v instanceof Map<?, ?> inline) {
                    inline.forEach((k, x) -> out.put(String.valueOf(k), x));
                    continue;
                }
            }
            out.put(f.getName(), v);
        }
        return out;
    }

    private static Object value(FieldDescriptor f, Object v, String path) {
        return switch (f.getJavaType()) {
            case MESSAGE -> message((Message) v, path);
            case BYTE_STRING -> Base64.getEncoder().encodeToString(((ByteString) v).toByteArray());
            case ENUM -> v.toString();
            default -> v;
        };
    }

    /** A message as JSON, with the types the API server writes as scalars. */
    private static Object message(Message m, String path) {
        String type = m.getDescriptorForType().getFullName();
        if (type.endsWith(".resource.Quantity")) {
            return field(m, "string");
        }
        if (type.endsWith(".meta.v1.Time")) {
            long seconds = (long) field(m, "seconds");
            return seconds == 0 && (int) field(m, "nanos") == 0
                    ? null
                    : Instant.ofEpochSecond(seconds).toString();
        }
        if (type.endsWith(".meta.v1.MicroTime")) {
            long seconds = (long) field(m, "seconds");
            int nanos = (int) field(m, "nanos");
            return seconds == 0 && nanos == 0
                    ? null
                    : MICRO.format(Instant.ofEpochSecond(seconds, nanos));
        }
        if (type.endsWith(".intstr.IntOrString")) {
            return ((long) field(m, "type")) == 1 ? field(m, "strVal") : field(m, "intVal");
        }
        if (type.endsWith(".runtime.RawExtension") || type.endsWith(".meta.v1.FieldsV1")) {
            ByteString raw = (ByteString) field(m, type.endsWith("FieldsV1") ? "Raw" : "raw");
            try {
                return raw.isEmpty()
                        ? null
                        : Json.MAPPER.readValue(raw.toString(StandardCharsets.UTF_8), Object.class);
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException(path + ": not JSON: " + e.getMessage(), e);
            }
        }
        if (type.endsWith(".meta.v1.Duration")) {
            return goDuration((long) field(m, "duration"));
        }
        return object(m, path);
    }

    private static Object field(Message m, String name) {
        FieldDescriptor f = m.getDescriptorForType().findFieldByName(name);
        if (f == null) {
            throw new IllegalStateException(
                    m.getDescriptorForType().getFullName() + " has no field " + name);
        }
        return m.getField(f);
    }

    /** Go's {@code time.Duration.String()} for whole and fractional seconds: 1h0m0s, 1.5s, 0s. */
    static String goDuration(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder(nanos < 0 ? "-" : "");
        long n = Math.abs(nanos);
        long hours = n / 3_600_000_000_000L;
        long minutes = n / 60_000_000_000L % 60;
        long secNanos = n % 60_000_000_000L;
        if (hours > 0) {
            b.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            b.append(minutes).append('m');
        }
        java.math.BigDecimal seconds =
                java.math.BigDecimal.valueOf(secNanos, 9).stripTrailingZeros();
        b.append(seconds.scale() <= 0 ? seconds.toBigInteger().toString() : seconds.toPlainString())
                .append('s');
        return b.toString();
    }
}
