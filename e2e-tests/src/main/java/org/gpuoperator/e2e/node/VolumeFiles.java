package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.gpuoperator.e2e.apiserver.ServiceAccountTokens;

/**
 * ConfigMap, Secret and service-account volumes as files, the kubelet's way: the projection (which
 * file gets which bytes and mode) is pure; {@link #write} publishes it atomically: a new
 * timestamped directory, then a symlink {@code ..data} swapped to it by rename, and each top-level
 * name a symlink through {@code ..data}, so a reader never sees half an update.
 */
public final class VolumeFiles {

    /** Kubernetes' default mode for projected files (0644). */
    public static final int DEFAULT_MODE = 0644;

    public record File(byte[] content, int mode) {
        @Override
        public boolean equals(Object o) {
            return o instanceof File f && f.mode == mode && Arrays.equals(f.content, content);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(content) * 31 + mode;
        }
    }

    private VolumeFiles() {}

    public static Map<String, File> configMap(
            ConfigMap cm, List<KeyToPath> items, Integer defaultMode) {
        Map<String, byte[]> data = new TreeMap<>();
        PodToCri.nullSafe(cm.getData())
                .forEach((k, v) -> data.put(k, v.getBytes(StandardCharsets.UTF_8)));
        PodToCri.nullSafe(cm.getBinaryData())
                .forEach((k, v) -> data.put(k, Base64.getDecoder().decode(v)));
        return project(data, items, defaultMode);
    }

    public static Map<String, File> secret(Secret s, List<KeyToPath> items, Integer defaultMode) {
        return project(secretData(s), items, defaultMode);
    }

    /**
     * A Secret's decoded data ({@code stringData} too: the mock API server does not merge it as a
     * real one does).
     */
    public static Map<String, byte[]> secretData(Secret s) {
        Map<String, byte[]> data = new TreeMap<>();
        PodToCri.nullSafe(s.getData())
                .forEach((k, v) -> data.put(k, Base64.getDecoder().decode(v)));
        PodToCri.nullSafe(s.getStringData())
                .forEach((k, v) -> data.put(k, v.getBytes(StandardCharsets.UTF_8)));
        return data;
    }

    /**
     * The service-account volume: token, ca.crt and namespace. The token names the pod's service
     * account, so that the API server knows which account calls.
     */
    public static Map<String, File> serviceAccount(
            ClusterAccess access, String namespace, String serviceAccount) {
        Map<String, File> out = new TreeMap<>();
        String token = ServiceAccountTokens.mint(namespace, serviceAccount);
        out.put("token", new File(token.getBytes(StandardCharsets.UTF_8), DEFAULT_MODE));
        out.put("ca.crt", new File(access.caPem().getBytes(StandardCharsets.UTF_8), DEFAULT_MODE));
        out.put("namespace", new File(namespace.getBytes(StandardCharsets.UTF_8), DEFAULT_MODE));
        return out;
    }

    /**
     * All keys as files named by the key, or only {@code items} at their paths (an item's own mode
     * wins); a missing item key is an error, as for the kubelet.
     */
    static Map<String, File> project(
            Map<String, byte[]> data, List<KeyToPath> items, Integer defaultMode) {
        int mode = defaultMode == null ? DEFAULT_MODE : defaultMode;
        Map<String, File> out = new TreeMap<>();
        if (items == null || items.isEmpty()) {
            data.forEach((k, v) -> out.put(k, new File(v, mode)));
            return out;
        }
        for (KeyToPath item : items) {
            byte[] v = data.get(item.getKey());
            if (v == null) {
                throw new IllegalArgumentException(
                        "configured to use key " + item.getKey() + " but it does not exist");
            }
            out.put(item.getPath(), new File(v, item.getMode() == null ? mode : item.getMode()));
        }
        return out;
    }

    /** Publishes {@code files} in {@code dir}, replacing what an earlier call published. */
    public static void write(Path dir, Map<String, File> files) throws IOException {
        Files.createDirectories(dir);
        String stamp =
                "..%d_%d".formatted(System.currentTimeMillis(), System.nanoTime() % 1_000_000);
        Path payload = dir.resolve(stamp);
        Files.createDirectory(payload);
        for (Map.Entry<String, File> e : files.entrySet()) {
            Path f = payload.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.write(f, e.getValue().content());
            Files.setPosixFilePermissions(f, permissions(e.getValue().mode()));
        }
        Path previous =
                Files.isSymbolicLink(dir.resolve("..data"))
                        ? dir.resolve(Files.readSymbolicLink(dir.resolve("..data")))
                        : null;
        Path tmp = dir.resolve("..data_tmp");
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, Path.of(stamp));
        Files.move(
                tmp,
                dir.resolve("..data"),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        Map<String, Boolean> topLevel = new LinkedHashMap<>();
        files.keySet().forEach(k -> topLevel.put(Path.of(k).getName(0).toString(), true));
        for (String name : topLevel.keySet()) {
            Path link = dir.resolve(name);
            if (!Files.isSymbolicLink(link)) {
                Files.createSymbolicLink(link, Path.of("..data").resolve(name));
            }
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                String n = p.getFileName().toString();
                if (!n.startsWith("..") && !topLevel.containsKey(n)) {
                    Files.delete(p); // a key that went away
                }
            }
        }
        if (previous != null && !previous.getFileName().toString().equals(stamp)) {
            deleteTree(previous);
        }
    }

    static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {
            PosixFilePermission.OTHERS_EXECUTE,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ
        };
        for (int i = 0; i < order.length; i++) {
            if ((mode & (1 << i)) != 0) {
                out.add(order[i]);
            }
        }
        return out;
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
