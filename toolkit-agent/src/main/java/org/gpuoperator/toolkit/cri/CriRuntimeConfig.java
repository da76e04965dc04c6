package org.gpuoperator.toolkit.cri;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.util.Optional;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;

/**
 * What containerd really loaded, read from a verbose CRI {@code Status} (kubelet-api's {@code
 * CriClient.status()}): containerd puts its effective CRI config as JSON under {@code
 * info["config"]}.
 *
 * <p>Read with Gson's streaming reader (shipped with gRPC), which walks to the few values needed
 * and skips the rest: the daemon's start path then loads no object-mapping library (Jackson's ~400
 * classes and its mapper's set-up were ~40 ms of its start and part of its idle memory).
 */
public final class CriRuntimeConfig {

    private CriRuntimeConfig() {}

    /** A runtime handler as the CRI plugin loaded it. */
    public record Handler(
            String runtimeType, Optional<String> binaryName, Optional<Boolean> systemdCgroup) {}

    /**
     * The handler {@code name} from {@code info["config"].containerd.runtimes}, if the runtime has
     * it.
     */
    public static Optional<Handler> handler(StatusResponse status, String name) throws IOException {
        String config = status.getInfoMap().get("config");
        if (config == null) {
            throw new IOException(
                    "CRI Status has no info[\"config\"] (not containerd, or verbose not honoured)");
        }
        try (JsonReader r = reader(config)) {
            if (!into(r, "containerd")
                    || !into(r, "runtimes")
                    || !into(r, name)
                    || r.peek() != JsonToken.BEGIN_OBJECT) {
                return Optional.empty();
            }
            String runtimeType = "";
            Optional<String> binaryName = Optional.empty();
            Optional<Boolean> systemdCgroup = Optional.empty();
            r.beginObject();
            while (r.hasNext()) {
                switch (r.nextName()) {
                    case "runtimeType" -> runtimeType = text(r).orElse("");
                    case "options" -> {
                        if (r.peek() != JsonToken.BEGIN_OBJECT) {
                            r.skipValue();
                            continue;
                        }
                        r.beginObject();
                        while (r.hasNext()) {
                            switch (r.nextName()) {
                                case "BinaryName" -> binaryName = text(r);
                                case "SystemdCgroup" -> systemdCgroup = bool(r);
                                default -> r.skipValue();
                            }
                        }
                        r.endObject();
                    }
                    default -> r.skipValue();
                }
            }
            return Optional.of(new Handler(runtimeType, binaryName, systemdCgroup));
        } catch (IOException | IllegalStateException e) {
            throw notJson(e);
        }
    }

    public static String defaultRuntimeName(StatusResponse status) throws IOException {
        try (JsonReader r = reader(status.getInfoMap().getOrDefault("config", "{}"))) {
            return into(r, "containerd") && into(r, "defaultRuntimeName") ? text(r).orElse("") : "";
        } catch (IOException | IllegalStateException e) {
            throw notJson(e);
        }
    }

    private static JsonReader reader(String json) {
        JsonReader r = new JsonReader(new StringReader(json));
        r.setStrictness(Strictness.STRICT);
        return r;
    }

    /**
     * Steps into the member {@code key} of the object the reader is at: true with the reader at
     * that member's value; false when the value there is not an object or has no such member.
     */
    private static boolean into(JsonReader r, String key) throws IOException {
        if (r.peek() != JsonToken.BEGIN_OBJECT) {
            return false;
        }
        r.beginObject();
        while (r.hasNext()) {
            if (r.nextName().equals(key)) {
                return true;
            }
            r.skipValue();
        }
        return false;
    }

    /** A string, number or boolean as text; empty for null, an object or an array. */
    private static Optional<String> text(JsonReader r) throws IOException {
        return switch (r.peek()) {
            case STRING, NUMBER -> Optional.of(r.nextString());
            case BOOLEAN -> Optional.of(String.valueOf(r.nextBoolean()));
            default -> {
                r.skipValue();
                yield Optional.empty();
            }
        };
    }

    /** A boolean, or a string that says {@code true} or {@code false}; empty for anything else. */
    private static Optional<Boolean> bool(JsonReader r) throws IOException {
        if (r.peek() == JsonToken.BOOLEAN) {
            return Optional.of(r.nextBoolean());
        }
        if (r.peek() == JsonToken.STRING) {
            String s = r.nextString();
            return s.equals("true") || s.equals("false")
                    ? Optional.of(Boolean.parseBoolean(s))
                    : Optional.empty();
        }
        r.skipValue();
        return Optional.empty();
    }

    private static IOException notJson(Exception e) {
        return new IOException(
                "CRI Status info[\"config\"] is not valid JSON: " + e.getMessage(), e);
    }
}
