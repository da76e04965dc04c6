package org.gpuoperator.toolkit.cdihook;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.simulated.OciJson;

/**
 * The container's root file system from the OCI state a hook reads on stdin ({@code bundle}) and
 * the bundle's {@code config.json} ({@code root.path}, relative to the bundle or absolute), and
 * paths resolved inside it as the container will see them. Pure.
 */
public final class ContainerRoot {

    private static final int MAX_LINKS = 40;

    private ContainerRoot() {}

    /** The bundle directory named by an OCI state document. */
    public static String bundle(String stateJson) {
        Object state = parse(stateJson, "container state");
        if (!(state instanceof Map<?, ?> m)
                || !(m.get("bundle") instanceof String bundle)
                || bundle.isEmpty()) {
            throw new IllegalArgumentException("container state: no bundle");
        }
        return bundle;
    }

    /** The root file system's host path: {@code root.path} of the bundle's config. */
    public static String rootPath(String bundle, String configJson) {
        Object config = parse(configJson, bundle + "/config.json");
        String path =
                config instanceof Map<?, ?> m
                                && m.get("root") instanceof Map<?, ?> root
                                && root.get("path") instanceof String p
                        ? p
                        : null;
        if (path == null || path.isEmpty()) {
            throw new IllegalArgumentException(bundle + "/config.json: no root.path");
        }
        String resolved = path.startsWith("/") ? path : bundle + "/" + path;
        String normal = normalize(resolved);
        if (normal.equals("/")) {
            throw new IllegalArgumentException(
                    bundle + "/config.json: root.path is the host's root");
        }
        return normal;
    }

    /** How a path in the container is seen: a symlink's text, if the path is a symlink. */
    @FunctionalInterface
    public interface Links {
        Optional<String> readlink(String containerPath);
    }

    /**
     * {@code path} as the container resolves it, every symlink followed inside the root (an
     * absolute target starts again at the container's root, {@code ..} stops at it), so nothing
     * done in the root lands outside it; the last element is followed only when {@code followLast}.
     *
     * @return a normalized absolute path in the container
     */
    public static String resolve(String path, boolean followLast, Links links) {
        Deque<String> todo = new ArrayDeque<>(elements(path));
        List<String> done = new ArrayList<>();
        int hops = 0;
        while (!todo.isEmpty()) {
            String e = todo.pollFirst();
            if (e.equals(".")) {
                continue;
            }
            if (e.equals("..")) {
                if (!done.isEmpty()) {
                    done.removeLast();
                }
                continue;
            }
            boolean last = todo.isEmpty();
            String candidate = join(done) + "/" + e;
            Optional<String> target =
                    last && !followLast ? Optional.empty() : links.readlink(candidate);
            if (target.isEmpty()) {
                done.add(e);
                continue;
            }
            if (++hops > MAX_LINKS) {
                throw new IllegalArgumentException(path + ": too many levels of symbolic links");
            }
            List<String> t = elements(target.get());
            for (int k = t.size() - 1; k >= 0; k--) {
                todo.addFirst(t.get(k));
            }
            if (target.get().startsWith("/")) {
                done.clear();
            }
        }
        return join(done).isEmpty() ? "/" : join(done);
    }

    static String normalize(String absolute) {
        return resolve(absolute, true, p -> Optional.empty());
    }

    private static List<String> elements(String path) {
        List<String> out = new ArrayList<>();
        for (String e : path.split("/")) {
            if (!e.isEmpty()) {
                out.add(e);
            }
        }
        return out;
    }

    private static String join(List<String> elements) {
        return elements.isEmpty() ? "" : "/" + String.join("/", elements);
    }

    private static Object parse(String json, String what) {
        try {
            return OciJson.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": invalid JSON: " + e.getMessage(), e);
        }
    }
}
