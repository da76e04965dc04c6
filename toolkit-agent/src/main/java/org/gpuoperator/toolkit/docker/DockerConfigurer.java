package org.gpuoperator.toolkit.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;

/**
 * Docker: {@code runtimes.nvidia} (and {@code default-runtime} when asked, {@code features.cdi}
 * when CDI is on) in {@code daemon.json}. Key order is kept; the file is re-rendered (JSON has no
 * comments) with its own indentation, and only when its content really changes.
 */
public final class DockerConfigurer implements RuntimeConfigurer {

    public static final String DEFAULT_CONFIG = "/etc/docker/daemon.json";
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern INDENT = Pattern.compile("\\n([ \\t]+)\"");

    private final String config;
    private final NvidiaRuntimes runtimes;

    public DockerConfigurer(String config, NvidiaRuntimes runtimes) {
        this.config = config;
        this.runtimes = runtimes;
    }

    @Override
    public String name() {
        return "docker";
    }

    @Override
    public List<String> files() {
        return List.of(config);
    }

    @Override
    public Plan configure(Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        Optional<String> text = current.getOrDefault(config, Optional.empty());
        Map<String, Object> doc = parse(config, text);
        Map<String, Object> before = deepCopy(doc);
        Map<String, Object> rts = objectAt(doc, "runtimes");
        boolean runtimesExisted = doc.containsKey("runtimes");
        runtimes.binaries()
                .forEach(
                        (name, path) -> {
                            Map<String, Object> rt = new LinkedHashMap<>();
                            rt.put("path", path);
                            rt.put("args", List.of());
                            rts.put(name, rt);
                        });
        doc.put("runtimes", rts);
        Object currentDefault = doc.get("default-runtime");
        String previousDefault =
                currentDefault instanceof String s && runtimes.isOurs(s)
                        ? remembered.getOrDefault("previousDefault", "")
                        : currentDefault instanceof String s ? s : "";
        if (runtimes.setAsDefault()) {
            doc.put("default-runtime", runtimes.name());
        } else if (currentDefault instanceof String s && runtimes.isOurs(s)) {
            restoreDefault(doc, previousDefault);
        }
        Map<String, String> remember = new LinkedHashMap<>();
        remember.put("previousDefault", previousDefault);
        remember.put(
                "runtimesAdded",
                String.valueOf(
                        remembered.getOrDefault(
                                "runtimesAdded", String.valueOf(!runtimesExisted))));
        if (runtimes.cdi()) {
            Map<String, Object> features = objectAt(doc, "features");
            if (!features.containsKey("cdi")) {
                remember.put("cdiFeatureAdded", "true");
            }
            features.put("cdi", true);
            doc.put("features", features);
        }
        if (remembered.containsKey("cdiFeatureAdded")) {
            remember.put("cdiFeatureAdded", remembered.get("cdiFeatureAdded"));
        }
        Map<String, Optional<String>> files = new LinkedHashMap<>();
        files.put(
                config,
                doc.equals(before) && text.isPresent() ? text : Optional.of(render(doc, text)));
        return new Plan(files, remember);
    }

    @Override
    public Map<String, Optional<String>> unconfigure(
            Map<String, Optional<String>> current, Map<String, String> remembered)
            throws ConfigException {
        Optional<String> text = current.getOrDefault(config, Optional.empty());
        if (text.isEmpty()) {
            return Map.of(config, Optional.empty());
        }
        Map<String, Object> doc = parse(config, text);
        Map<String, Object> before = deepCopy(doc);
        if (doc.get("runtimes") instanceof Map<?, ?> rts) {
            runtimes.allNames().forEach(rts::remove);
            if (rts.isEmpty() && !"false".equals(remembered.get("runtimesAdded"))) {
                doc.remove("runtimes");
            }
        }
        if (doc.get("default-runtime") instanceof String s && runtimes.isOurs(s)) {
            restoreDefault(doc, remembered.getOrDefault("previousDefault", ""));
        }
        if ("true".equals(remembered.get("cdiFeatureAdded"))
                && doc.get("features") instanceof Map<?, ?> f) {
            f.remove("cdi");
            if (f.isEmpty()) {
                doc.remove("features");
            }
        }
        return Map.of(config, doc.equals(before) ? text : Optional.of(render(doc, text)));
    }

    @Override
    public void validate(String hostPath, String content) throws ConfigException {
        parse(hostPath, Optional.of(content));
    }

    @Override
    public boolean mentionsUs(String content) {
        return content.contains(runtimes.binary());
    }

    @Override
    public boolean configured(Map<String, Optional<String>> current) throws ConfigException {
        Map<String, Object> doc = parse(config, current.getOrDefault(config, Optional.empty()));
        return doc.get("runtimes") instanceof Map<?, ?> rts
                && rts.get(runtimes.name()) instanceof Map<?, ?> rt
                && runtimes.binary().equals(rt.get("path"));
    }

    private static void restoreDefault(Map<String, Object> doc, String previousDefault) {
        if (previousDefault.isEmpty()) {
            doc.remove("default-runtime");
        } else {
            doc.put("default-runtime", previousDefault);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> objectAt(Map<String, Object> doc, String key)
            throws ConfigException {
        Object v = doc.get(key);
        if (v == null) {
            return new LinkedHashMap<>();
        }
        if (!(v instanceof Map)) {
            throw new ConfigException(config + ": \"" + key + "\" must be a JSON object");
        }
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> parse(String source, Optional<String> text) throws ConfigException {
        if (text.isEmpty() || text.get().isBlank()) {
            return new LinkedHashMap<>();
        }
        try {
            Object v = JSON.readValue(text.get(), Object.class);
            if (!(v instanceof Map)) {
                throw new ConfigException(source + ": expected a JSON object at the top level");
            }
            return (Map<String, Object>) v;
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ConfigException(
                    source
                            + (loc != null ? ":" + loc.getLineNr() + ":" + loc.getColumnNr() : "")
                            + ": invalid JSON: "
                            + e.getOriginalMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> deepCopy(Map<String, Object> doc) {
        try {
            return JSON.readValue(JSON.writeValueAsString(doc), LinkedHashMap.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Renders with the file's own indentation (2 spaces when unknown) and a final newline. */
    static String render(Map<String, Object> doc, Optional<String> original) {
        String indent = "  ";
        if (original.isPresent()) {
            Matcher m = INDENT.matcher(original.get());
            if (m.find()) {
                indent = m.group(1);
            }
        }
        DefaultIndenter in = new DefaultIndenter(indent, "\n");
        DefaultPrettyPrinter pp =
                new DefaultPrettyPrinter()
                        .withSeparators(
                                Separators.createDefaultInstance()
                                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER));
        pp.indentObjectsWith(in);
        pp.indentArraysWith(in);
        try {
            return JSON.writer(pp).writeValueAsString(doc).replace("[ ]", "[]").replace("{ }", "{}")
                    + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
